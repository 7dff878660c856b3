"""Drive the crew on a LangGraph server with langgraph_sdk: a thread, the plan interrupt, an edit, a fork.

    AQUASCOPE_AUTH=off langgraph dev --no-browser --host 127.0.0.1 --port 2024   # in the project folder
    python examples/sdk_client.py http://127.0.0.1:2024

On a server that asks for tokens (graphs/auth.py), give yours in AQUASCOPE_TOKEN.

A thread starts from a chat message (as LangGraph Studio's chat does), is asked for the site's basin characteristics
(the provide_data interrupt; this example goes on without them), waits at the plan (an agent-inbox
interrupt), is approved with an edit in the inbox shape (fewer bootstrap resamples), and a fork from the
plan checkpoint in the thread's history is answered with another edit (the 200-year flood).
"""

from __future__ import annotations

import asyncio
import os
import sys

from langgraph_sdk import get_client


async def main(url: str = "http://127.0.0.1:2024") -> None:
    token = os.environ.get("AQUASCOPE_TOKEN")
    client = get_client(url=url, headers={"Authorization": f"Bearer {token}"} if token else None)
    assistant = (await client.assistants.search(graph_id="aquascope"))[0]["assistant_id"]
    thread = (await client.threads.create())["thread_id"]
    message = {"type": "human", "content": "Design flow for a road crossing, 100-year, at 41.10, -74.96"}

    async def progress(**run) -> dict:  # the roles' progress events, streamed; then the interrupt it waits at
        async for chunk in client.runs.stream(thread, assistant, stream_mode="custom", **run):
            if chunk.event == "custom" and chunk.data.get("event") in ("brief", "inventory", "plan"):
                print(f"  [{chunk.data['role']}] {chunk.data['event']}")
        return (await client.threads.get_state(thread))["interrupts"][0]["value"][0]  # a HumanInterrupt, in a list

    request = await progress(input={"messages": [message]})
    if request["action_request"]["action"] == "provide_data":  # the crew asks for data the plan stands without
        print("asked for:", request["action_request"]["args"]["request"]["what"])
        request = await progress(command={"resume": [{"type": "response", "args": "continue without"}]})
    print("waiting for:", request["action_request"]["action"])
    study = request["action_request"]["args"]["study"]
    next(s for s in study["steps"] if s["tool"] == "flood_frequency")["arguments"]["n_bootstrap"] = 500
    edit = {"type": "edit", "args": {"action": "approve_plan", "args": {"study": study}}}
    done = await client.runs.wait(thread, assistant, command={"resume": [edit]})
    print("answer:", done["answer"])

    # a fork: the plan checkpoint from the thread's history, resumed with a different answer
    history = await client.threads.get_history(thread, limit=50)
    at_plan = next(h for h in history if h["next"] == ["review"])
    forked = await client.runs.wait(thread, assistant, checkpoint_id=at_plan["checkpoint"]["checkpoint_id"],
                                    command={"resume": [{"type": "edit", "args": {
                                        "action": "approve_plan", "args": {"intake": {"return_period": 200}}}}]})
    print("fork answer:", forked["answer"])


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
