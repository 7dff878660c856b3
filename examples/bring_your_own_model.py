"""The crew with a model of your choice: any litellm model string, with your key or your own endpoint.

    python examples/bring_your_own_model.py --model openai/gpt-4o-mini            # OPENAI_API_KEY set
    python examples/bring_your_own_model.py --model openai/my-model --base-url http://127.0.0.1:8000/v1 \\
        --api-key local                                                            # an OpenAI-compatible server

The model writes words (the brief's reading, the report's prose); the numbers still come from the
results: a sentence whose numbers are in no result is dropped, and a reply that cannot be used makes the
role fall back to its keyless behaviour. The ledger printed at the end says which roles called the model.
"""

from __future__ import annotations

import argparse

from graphs.studio import Studio


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True, help="a litellm model string, e.g. openai/gpt-4o-mini")
    p.add_argument("--base-url", help="an OpenAI-compatible endpoint (a local server)")
    p.add_argument("--api-key", help="the key for the endpoint (default: the provider's environment variable)")
    p.add_argument("--out", default="byom-study")
    args = p.parse_args(argv)
    with Studio(lat=41.10, lon=-74.96, model=args.model, base_url=args.base_url, api_key=args.api_key,
                timeout=60) as studio:
        reply = studio.say("Design flow for a road crossing, 100-year")
        if reply.kind == "data_request":  # the site's basin characteristics: gone on without them
            studio.say("continue without")
        reply = studio.approve()
        print(reply.text)
        ws = studio.to_dict()
        print("written by:", ws["report"]["written_by"])
        for d in ws["report"].get("dropped") or []:
            print("dropped (a number in no result):", d["sentence"])
        for role, row in ws["ledger"].items():
            print(f"ledger {role}: {row.get('calls')} calls, {row.get('prompt_tokens')} + {row.get('completion_tokens')} tokens")
        for path in studio.export(args.out):
            print("wrote", path)


if __name__ == "__main__":
    main()
