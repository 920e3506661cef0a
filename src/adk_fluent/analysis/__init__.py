"""The analysis room: reads the IR only. Visibility inference, the contract checker, mermaid."""
