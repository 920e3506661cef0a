"""How a chunked edge cuts text (ir/edges.py): by sentence, paragraph, line or size, the same
chunks however the text arrives; and how a FanOut merge combines branch outputs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adk_fluent.ir.edges import (
    Chunker,
    FanOutMerge,
    chunk_joiner,
    describe_by,
    join_outputs,
    split_chunks,
)

TEXT = "Hello there. How are you? Fine! Pi is 3.14 today... Bye.\nNext line\n\nNew para."


def test_sentences_end_at_a_terminator_followed_by_space():
    assert split_chunks(TEXT, "sentence") == [
        "Hello there.",
        "How are you?",
        "Fine!",
        "Pi is 3.14 today...",
        "Bye.",
        "Next line\n\nNew para.",
    ]


def test_a_sentence_is_complete_only_once_the_space_after_it_arrived():
    chunker = Chunker("sentence")
    assert chunker.feed("Hello there.") == []  # "." may still be "..." or "3.14"
    assert chunker.feed(" How") == ["Hello there."]
    assert chunker.feed(' are you?") Fine') == ['How are you?")']
    assert chunker.flush() == ["Fine"]
    assert chunker.flush() == []


def test_paragraphs_end_at_a_blank_line():
    assert split_chunks("One.\nStill one.\n \nTwo.\n\n\n\nThree", "paragraph") == [
        "One.\nStill one.",
        "Two.",
        "Three",
    ]


def test_lines_end_at_a_newline_and_empty_lines_are_dropped():
    assert split_chunks("a\n\n  b  \nc", "line") == ["a", "b", "c"]


def test_sizes_cut_at_a_word_boundary_and_never_split_a_word():
    assert split_chunks("aaa bbb ccc dddd", 7) == ["aaa bbb", "ccc", "dddd"]
    assert split_chunks("tiny supercalifragilistic end", 6) == [
        "tiny",
        "supercalifragilistic",
        "end",
    ]
    for chunk in split_chunks("the quick brown fox jumps over the lazy dog " * 5, 12):
        assert len(chunk) <= 12


def test_whitespace_only_text_makes_no_chunk():
    assert split_chunks("   \n\n  ", "sentence") == []
    assert split_chunks("", 10) == []


_TEXTS = st.text(alphabet=st.sampled_from(list("ab .!?\n\"')3")), max_size=80)


@pytest.mark.parametrize("by", ["sentence", "paragraph", "line", 1, 5, 13])
@given(text=_TEXTS, cuts=st.lists(st.integers(min_value=0, max_value=80), max_size=8))
def test_chunks_do_not_depend_on_how_the_text_arrives(by, text, cuts):
    whole = split_chunks(text, by)
    chunker = Chunker(by)
    pieces, start = [], 0
    for cut in sorted(set(cuts)):
        pieces.append(text[start:cut])
        start = max(start, cut)
    pieces.append(text[start:])
    streamed = [chunk for piece in pieces for chunk in chunker.feed(piece)] + chunker.flush()
    assert streamed == whole
    assert all(chunk == chunk.strip() and chunk for chunk in whole)


def test_outputs_are_joined_like_the_text_they_came_from():
    assert join_outputs(["a", "b"], "sentence") == "a b"
    assert join_outputs(["a", "b"], "line") == "a\nb"
    assert join_outputs(["a", "b"], "paragraph") == "a\n\nb"
    assert join_outputs(["a", "b"], 40) == "a b"
    assert join_outputs([], "sentence") == ""
    assert join_outputs([{"x": 1}, "b"], "sentence") == [{"x": 1}, "b"]  # an output_schema
    assert chunk_joiner("line") == "\n" and describe_by(200) == "200 characters"


def test_merge_modes_combine_outputs_in_branch_order():
    outputs = {"web": "W", "docs": None, "news": {"n": 1}}
    assert FanOutMerge("dict", "r").combine(outputs) == outputs
    assert FanOutMerge("concat", "r").combine(outputs) == 'W\n\n{"n": 1}'
    assert FanOutMerge("concat", "r", separator=" | ").combine({"a": "1", "b": "2"}) == "1 | 2"
    seen = []
    reducer = FanOutMerge("reducer", "r", reducer=lambda d: seen.append(d) or len(d))
    assert reducer.combine(outputs) == 3 and seen == [outputs]


def test_merges_describe_themselves_as_written():
    def best(outputs):
        return outputs

    assert FanOutMerge("dict", "results").describe() == 'merge("dict", into="results")'
    assert FanOutMerge("concat", "r", separator="-").describe() == (
        'merge("concat", into="r", separator=\'-\')'
    )
    assert FanOutMerge("reducer", "best", reducer=best).describe() == 'merge(best, into="best")'
