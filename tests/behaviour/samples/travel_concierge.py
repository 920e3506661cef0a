"""A travel concierge of 23 agents: a root that delegates to six phase agents (inspiration,
planning, booking, before, during and after the trip), most of which work through agent tools
with structured output; agent tools hold agent tools (two deep, one with ADK's google_search),
one phase agent delegates further, one agent's instruction is a function of state, a callback
loads the traveller's profile into state and a tool lets several agents remember things in
state. The shape of adk-samples' travel concierge, over six turns."""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.tools import ToolContext, google_search
from google.adk.tools.agent_tool import AgentTool
from google.genai import types
from pydantic import BaseModel

from adk_fluent import Agent
from adk_fluent.testing import call

SHAPE = "20+ agent concierge: delegation to phase agents with their own agent tools"
MODEL = "gemini-2.5-flash"
JSON_REPLY = types.GenerateContentConfig(response_mime_type="application/json")


# -- structured answers ------------------------------------------------------------------------
class Destination(BaseModel):
    name: str
    country: str
    why: str


class DestinationIdeas(BaseModel):
    places: list[Destination]


class ActivityIdeas(BaseModel):
    activities: list[str]


class FlightOptions(BaseModel):
    flights: list[str]


class SeatOptions(BaseModel):
    seats: list[str]


class HotelOptions(BaseModel):
    hotels: list[str]


class RoomOptions(BaseModel):
    rooms: list[str]


class Itinerary(BaseModel):
    destination: str
    start: str
    end: str
    days: list[str]


class PackingList(BaseModel):
    items: list[str]


# -- tools and callbacks -----------------------------------------------------------------------
def remember(key: str, value: str, tool_context: ToolContext) -> dict:
    """Remember one piece of information about the trip under a label."""
    tool_context.state[key] = value
    return {"stored": key}


def load_traveller(callback_context: CallbackContext) -> None:
    """Load the traveller's profile into state at the start of each turn, once."""
    if "traveller" not in callback_context.state:
        callback_context.state["traveller"] = {"name": "Ana", "home": "Berlin", "seat": "aisle"}


def map_link(place: str) -> dict:
    """A map link for a place."""
    return {"place": place, "link": "https://maps.example.org/?q=" + place.replace(" ", "+")}


def check_visa(nationality: str, country: str) -> dict:
    """Whether a visa is needed for a stay of under 90 days."""
    return {"visa_needed": nationality != country and country not in ("Portugal", "Spain")}


def flight_status(flight: str) -> dict:
    """The status of a flight today."""
    return {"flight": flight, "status": "on time"}


def event_status(event: str) -> dict:
    """Whether a booked event takes place today."""
    return {"event": event, "status": "open"}


def weather_check(place: str) -> dict:
    """Today's weather at a place."""
    return {"place": place, "weather": "sunny"}


def day_plan_instruction(context: ReadonlyContext) -> str:
    """The day planner's instruction, built from the itinerary in state."""
    itinerary = context.state.get("itinerary") or {}
    return (
        f"The traveller is in {itinerary.get('destination', 'their destination')}. "
        "Plan how they get between today's stops, with times."
    )


# -- prompts -----------------------------------------------------------------------------------
ROOT = (
    "You are a travel concierge for {traveller}. Hand the conversation to the agent for the "
    "trip's phase: inspiration_agent, planning_agent, booking_agent, pre_trip_agent, "
    "in_trip_agent or post_trip_agent."
)
INSPIRE = "Inspire the traveller: use place_agent for destinations and poi_agent for sights."
PLACES = "Suggest three destinations that fit what the traveller asked for."
POIS = "Suggest five things to do in the destination the traveller chose."
PLAN = (
    "Plan the trip: flights (flight_search_agent, seat_agent), hotel (hotel_search_agent, "
    "room_agent), then the itinerary (itinerary_agent). Remember choices with remember."
)
FLIGHTS = "Find three flights for the trip asked about."
SEATS = "Offer seats on the chosen flight; the traveller prefers {traveller}."
HOTELS = "Find three hotels near the centre of the destination."
ROOMS = "Offer the room types of the chosen hotel."
ITINERARY = "Write the itinerary for the trip agreed so far, day by day."
BOOK = "Book the itinerary {itinerary?}: reserve each item, offer payment options, take payment."
RESERVE = "Reserve the item asked for and return a reservation number."
PAY_OPTIONS = "List the payment options for the traveller."
PAY = "Take the payment with the chosen option and confirm it."
PRE_TRIP = "Before the trip: check what the traveller must know (travel_advisor) and pack."
ADVISE = (
    "Advise on entry rules and local news for the trip; ask visa_checker about visas and "
    "news_search about the news."
)
NEWS = "Search the web for news that affects a traveller at the destination; one sentence."
VISA = "Check with check_visa whether the traveller needs a visa."
PACK = "Write a packing list for the itinerary {itinerary?}."
IN_TRIP = "During the trip: plan the day with day_planner; hand monitoring to trip_monitor."
MONITOR = "Check today's flights, events and weather for the itinerary {itinerary?}."
POST_TRIP = "After the trip: ask how it went and remember the traveller's feedback."


def native():
    inspiration = LlmAgent(
        name="inspiration_agent",
        model=MODEL,
        description="Inspires the traveller with destinations and sights.",
        instruction=INSPIRE,
        tools=[
            AgentTool(
                agent=LlmAgent(
                    name="place_agent",
                    model=MODEL,
                    description="Suggests destinations.",
                    instruction=PLACES,
                    output_schema=DestinationIdeas,
                    output_key="places",
                    generate_content_config=JSON_REPLY,
                    disallow_transfer_to_parent=True,
                    disallow_transfer_to_peers=True,
                )
            ),
            AgentTool(
                agent=LlmAgent(
                    name="poi_agent",
                    model=MODEL,
                    description="Suggests things to do.",
                    instruction=POIS,
                    output_schema=ActivityIdeas,
                    output_key="activities",
                    generate_content_config=JSON_REPLY,
                    disallow_transfer_to_parent=True,
                    disallow_transfer_to_peers=True,
                )
            ),
            map_link,
        ],
    )
    planning = LlmAgent(
        name="planning_agent",
        model=MODEL,
        description="Plans flights, hotel and the itinerary.",
        instruction=PLAN,
        tools=[
            AgentTool(
                agent=LlmAgent(
                    name=name,
                    model=MODEL,
                    instruction=instruction,
                    output_schema=schema,
                    output_key=key,
                    generate_content_config=JSON_REPLY,
                    disallow_transfer_to_parent=True,
                    disallow_transfer_to_peers=True,
                )
            )
            for name, instruction, schema, key in [
                ("flight_search_agent", FLIGHTS, FlightOptions, "flights"),
                ("seat_agent", SEATS, SeatOptions, "seat"),
                ("hotel_search_agent", HOTELS, HotelOptions, "hotels"),
                ("room_agent", ROOMS, RoomOptions, "room"),
                ("itinerary_agent", ITINERARY, Itinerary, "itinerary"),
            ]
        ]
        + [remember],
        generate_content_config=types.GenerateContentConfig(temperature=0.1, top_p=0.5),
    )
    booking = LlmAgent(
        name="booking_agent",
        model=MODEL,
        description="Books and pays for the itinerary.",
        instruction=BOOK,
        tools=[
            AgentTool(agent=LlmAgent(name="reserve_agent", model=MODEL, instruction=RESERVE)),
            AgentTool(
                agent=LlmAgent(name="payment_options_agent", model=MODEL, instruction=PAY_OPTIONS)
            ),
            AgentTool(agent=LlmAgent(name="payment_agent", model=MODEL, instruction=PAY)),
        ],
        generate_content_config=types.GenerateContentConfig(temperature=0.0, top_p=0.5),
    )
    visa_checker = LlmAgent(name="visa_checker", model=MODEL, instruction=VISA, tools=[check_visa])
    news_search = LlmAgent(name="news_search", model=MODEL, instruction=NEWS, tools=[google_search])
    pre_trip = LlmAgent(
        name="pre_trip_agent",
        model=MODEL,
        description="Prepares the traveller before departure.",
        instruction=PRE_TRIP,
        tools=[
            AgentTool(
                agent=LlmAgent(
                    name="travel_advisor",
                    model=MODEL,
                    instruction=ADVISE,
                    tools=[AgentTool(agent=visa_checker), AgentTool(agent=news_search)],
                )
            ),
            AgentTool(
                agent=LlmAgent(
                    name="packing_agent",
                    model=MODEL,
                    instruction=PACK,
                    output_schema=PackingList,
                    output_key="packing",
                    disallow_transfer_to_parent=True,
                    disallow_transfer_to_peers=True,
                )
            ),
        ],
    )
    in_trip = LlmAgent(
        name="in_trip_agent",
        model=MODEL,
        description="Looks after the traveller during the trip.",
        instruction=IN_TRIP,
        sub_agents=[
            LlmAgent(
                name="trip_monitor",
                model=MODEL,
                description="Checks flights, events and weather.",
                instruction=MONITOR,
                tools=[flight_status, event_status, weather_check],
                output_key="daily_checks",
            )
        ],
        tools=[
            AgentTool(
                agent=LlmAgent(name="day_planner", model=MODEL, instruction=day_plan_instruction)
            ),
            remember,
        ],
    )
    post_trip = LlmAgent(
        name="post_trip_agent",
        model=MODEL,
        description="Learns from the traveller after the trip.",
        instruction=POST_TRIP,
        tools=[remember],
    )
    return LlmAgent(
        name="concierge",
        model=MODEL,
        description="A travel concierge with an agent for each phase of a trip.",
        instruction=ROOT,
        sub_agents=[inspiration, planning, booking, pre_trip, in_trip, post_trip],
        before_agent_callback=load_traveller,
    )


def fluent():
    def structured(name: str, instruction: str, schema: type, key: str) -> Agent:
        return (
            Agent(name, MODEL)
            .instruct(instruction)
            .output_schema(schema)
            .outputs(key)
            .generate_content_config(JSON_REPLY)
            .disallow_transfer_to_parent(True)
            .disallow_transfer_to_peers(True)
        )

    inspiration = (
        Agent("inspiration_agent", MODEL)
        .description("Inspires the traveller with destinations and sights.")
        .instruct(INSPIRE)
        .tool(
            structured("place_agent", PLACES, DestinationIdeas, "places").description(
                "Suggests destinations."
            )
        )
        .tool(
            structured("poi_agent", POIS, ActivityIdeas, "activities").description(
                "Suggests things to do."
            )
        )
        .tool(map_link)
    )
    planning = (
        Agent("planning_agent", MODEL)
        .description("Plans flights, hotel and the itinerary.")
        .instruct(PLAN)
        .tool(structured("flight_search_agent", FLIGHTS, FlightOptions, "flights"))
        .tool(structured("seat_agent", SEATS, SeatOptions, "seat"))
        .tool(structured("hotel_search_agent", HOTELS, HotelOptions, "hotels"))
        .tool(structured("room_agent", ROOMS, RoomOptions, "room"))
        .tool(structured("itinerary_agent", ITINERARY, Itinerary, "itinerary"))
        .tool(remember)
        .generate_content_config(types.GenerateContentConfig(temperature=0.1, top_p=0.5))
    )
    booking = (
        Agent("booking_agent", MODEL)
        .description("Books and pays for the itinerary.")
        .instruct(BOOK)
        .tool(Agent("reserve_agent", MODEL).instruct(RESERVE))
        .tool(Agent("payment_options_agent", MODEL).instruct(PAY_OPTIONS))
        .tool(Agent("payment_agent", MODEL).instruct(PAY))
        .generate_content_config(types.GenerateContentConfig(temperature=0.0, top_p=0.5))
    )
    visa_checker = Agent("visa_checker", MODEL).instruct(VISA).tool(check_visa)
    packing = (
        Agent("packing_agent", MODEL)
        .instruct(PACK)
        .output_schema(PackingList)
        .outputs("packing")
        .disallow_transfer_to_parent(True)
        .disallow_transfer_to_peers(True)
    )
    pre_trip = (
        Agent("pre_trip_agent", MODEL)
        .description("Prepares the traveller before departure.")
        .instruct(PRE_TRIP)
        .tool(
            Agent("travel_advisor", MODEL)
            .instruct(ADVISE)
            .tool(visa_checker)
            .tool(Agent("news_search", MODEL).instruct(NEWS).tool(google_search))
        )
        .tool(packing)
    )
    monitor = (
        Agent("trip_monitor", MODEL)
        .description("Checks flights, events and weather.")
        .instruct(MONITOR)
        .tools(flight_status, event_status, weather_check)
        .outputs("daily_checks")
    )
    in_trip = (
        Agent("in_trip_agent", MODEL)
        .description("Looks after the traveller during the trip.")
        .instruct(IN_TRIP)
        .delegate(monitor)
        .tool(Agent("day_planner", MODEL).instruct(day_plan_instruction))
        .tool(remember)
    )
    post_trip = (
        Agent("post_trip_agent", MODEL)
        .description("Learns from the traveller after the trip.")
        .instruct(POST_TRIP)
        .tool(remember)
    )
    return (
        Agent("concierge", MODEL)
        .description("A travel concierge with an agent for each phase of a trip.")
        .instruct(ROOT)
        .delegate(inspiration, planning, booking, pre_trip, in_trip, post_trip)
        .before_agent(load_traveller)
    )


TURNS = [
    "Somewhere warm by the sea in May, please.",
    "Lisbon it is: plan May 3 to 7.",
    "Book it.",
    "Anything I should know before I go?",
    "I am in Lisbon now, what is today's plan?",
    "Back home now; the trip was lovely but the hotel was loud.",
]
ITINERARY_JSON = {
    "destination": "Lisbon",
    "start": "2026-05-03",
    "end": "2026-05-07",
    "days": ["Alfama", "Belem", "Sintra", "Cascais", "Fly home"],
}
SCRIPTS = {
    "concierge": [call("transfer_to_agent", agent_name="inspiration_agent")],
    "inspiration_agent": [
        call("place_agent", request="Warm seaside places in May"),
        call("poi_agent", request="Things to do in Lisbon"),
        call("map_link", place="Lisbon"),
        "Lisbon, Valencia or Split; in Lisbon, see Alfama and Belem.",
        call("transfer_to_agent", agent_name="planning_agent"),
    ],
    "place_agent": [
        {
            "places": [
                {"name": "Lisbon", "country": "Portugal", "why": "sun and sea"},
                {"name": "Valencia", "country": "Spain", "why": "beaches"},
            ]
        }
    ],
    "poi_agent": [{"activities": ["Alfama walk", "Belem tower", "tram 28"]}],
    "planning_agent": [
        call("flight_search_agent", request="Berlin to Lisbon, May 3, back May 7"),
        call("seat_agent", request="Seats on TP561"),
        call("hotel_search_agent", request="Hotels in central Lisbon"),
        call("room_agent", request="Rooms at Casa Azul"),
        call("itinerary_agent", request="Lisbon, May 3 to 7, TP561, Casa Azul"),
        call("remember", key="hotel_choice", value="Casa Azul"),
        "Your trip: TP561 on May 3, Casa Azul, five days; ready to book.",
        call("transfer_to_agent", agent_name="booking_agent"),
    ],
    "flight_search_agent": [{"flights": ["TP561 09:10 EUR 120", "FR1234 06:00 EUR 60"]}],
    "seat_agent": [{"seats": ["12C aisle", "14D aisle"]}],
    "hotel_search_agent": [{"hotels": ["Casa Azul EUR 90", "Hotel Rio EUR 140"]}],
    "room_agent": [{"rooms": ["double, street side", "double, courtyard"]}],
    "itinerary_agent": [ITINERARY_JSON],
    "booking_agent": [
        call("reserve_agent", request="TP561 seat 12C and Casa Azul May 3-7"),
        call("payment_options_agent", request="Payment options"),
        call("payment_agent", request="Pay EUR 480 by card"),
        "Booked and paid: reservation R-2041.",
        call("transfer_to_agent", agent_name="pre_trip_agent"),
    ],
    "reserve_agent": ["Reservation R-2041 holds TP561 12C and Casa Azul."],
    "payment_options_agent": ["Card or bank transfer."],
    "payment_agent": ["EUR 480 paid by card."],
    "pre_trip_agent": [
        call("travel_advisor", request="Entry rules for a German citizen in Portugal"),
        call("packing_agent", request="Packing for Lisbon in May"),
        "No visa needed; pack light layers and walking shoes.",
        call("transfer_to_agent", agent_name="in_trip_agent"),
    ],
    "travel_advisor": [
        call("visa_checker", request="German citizen to Portugal"),
        call("news_search", request="Lisbon news for travellers in May"),
        "No visa needed; a tram strike is planned for May 5.",
    ],
    "visa_checker": [
        call("check_visa", nationality="Germany", country="Portugal"),
        "No visa needed.",
    ],
    "news_search": ["A tram strike is planned for May 5."],
    "packing_agent": [{"items": ["light jacket", "walking shoes", "sun hat"]}],
    "in_trip_agent": [
        call("day_planner", request="Today's plan"),
        call("transfer_to_agent", agent_name="trip_monitor"),
        call("transfer_to_agent", agent_name="post_trip_agent"),
    ],
    "day_planner": ["Tram 28 to Alfama at 10:00, lunch at 13:00, Belem by 15:00."],
    "trip_monitor": [
        call("weather_check", place="Lisbon"),
        call("event_status", event="Fado evening"),
        "Sunny; the fado evening is on.",
        call("transfer_to_agent", agent_name="in_trip_agent"),
    ],
    "post_trip_agent": [
        call("remember", key="feedback", value="lovely trip, loud hotel"),
        "Glad you enjoyed it; next time I will look for a quieter hotel.",
    ],
}
AGENTS = 23
