"""Call the crew's MCP server from an MCP client over stdio: a whole study, start to files.

    python examples/mcp_client.py [OUT_DIR]

It launches `python -m graphs.cli mcp --export-dir PARENT` (the same as `aquascope mcp`) as a subprocess, starts a
study, approves its plan, exports the files into OUT_DIR (the server writes only under its export folder, so the
folder's name is what the call names), and shows the error a bad call gets back.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters


def data(result) -> dict:
    sc = result.structured_content
    if sc is not None:
        return sc.get("result", sc) if isinstance(sc, dict) and set(sc) == {"result"} else sc
    return json.loads(result.content[0].text)


async def main(out: str = "mcp-study") -> None:
    folder = os.path.abspath(out)
    server = StdioServerParameters(command=sys.executable, env=dict(os.environ),
                                   args=["-m", "graphs.cli", "mcp", "--export-dir", os.path.dirname(folder)])
    async with Client(server) as client:
        print("tools:", ", ".join(sorted(t.name for t in (await client.list_tools()).tools)))
        start = data(await client.call_tool("studio_start", {
            "problem": "Design flow for a road crossing, 100-year", "lat": 41.10, "lon": -74.96,
            "include_workspace": False}))
        print(start["reply"]["kind"], "for study", start["study_id"])
        if start["reply"]["kind"] == "data_request":  # the site's basin characteristics: gone on without them
            plan = data(await client.call_tool("studio_say", {"study_id": start["study_id"], "text": "continue without",
                                                               "include_workspace": False}))
            print(plan["reply"]["kind"], "for study", start["study_id"])
        done = data(await client.call_tool("studio_approve", {"study_id": start["study_id"],
                                                               "include_workspace": False}))
        print("answer:", done["reply"]["text"])
        files = data(await client.call_tool("studio_export", {"study_id": start["study_id"],
                                                                     "out": os.path.basename(folder)}))
        print("files:", ", ".join(files["files"]))
        print("a bad call:", data(await client.call_tool("studio_start", {"problem": "flood", "lat": 95, "lon": 0})))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
