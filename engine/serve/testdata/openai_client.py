"""Drives the course's API server with OpenAI's own Python client.

Run by python_test.go against a server it started: python openai_client.py
BASE_URL EXPECTED, where EXPECTED is a JSON object with the question and
decoding.Chat's greedy answer to it. Prints a line per check and exits 1 if
any failed.
"""

import json
import sys

import openai

base_url, expected = sys.argv[1], json.loads(sys.argv[2])
client = openai.OpenAI(base_url=base_url, api_key="course-key", max_retries=0)
messages = [{"role": "user", "content": expected["question"]}]
greedy = dict(model="smollm2", messages=messages, temperature=0, max_tokens=32)
failed = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failed.append(name)


# A plain answer, with log-probabilities: the engine's, token for token.
got = client.chat.completions.create(**greedy, logprobs=True, top_logprobs=3)
text = got.choices[0].message.content
check("chat equals decoding.Chat", text == expected["answer"], repr(text))
content = got.choices[0].logprobs.content
joined = b"".join(bytes(c.bytes) for c in content).decode("utf-8")
check("logprobs cover the answer", joined == expected["answer"], repr(joined))
check("top_logprobs", all(len(c.top_logprobs) == 3 for c in content))
check("usage adds up", got.usage.total_tokens == got.usage.prompt_tokens + got.usage.completion_tokens > 0, str(got.usage))

# Streamed: the deltas join to the same answer; usage comes last.
stream = client.chat.completions.create(**greedy, stream=True, stream_options={"include_usage": True})
pieces, usage, finish = [], None, None
for chunk in stream:
    for choice in chunk.choices:
        pieces.append(choice.delta.content or "")
        finish = choice.finish_reason or finish
    usage = chunk.usage or usage
check("streamed equals decoding.Chat", "".join(pieces) == expected["answer"], repr("".join(pieces)))
check("stream ends with a finish reason and usage", finish in ("stop", "length") and usage is not None, f"{finish} {usage}")

# stop: the answer ends before the stop string, finish_reason stop.
stop = expected["answer"][2:5]
got = client.chat.completions.create(**greedy, stop=[stop])
cut = expected["answer"][: expected["answer"].index(stop)]
check("stop", got.choices[0].message.content == cut and got.choices[0].finish_reason == "stop", repr(got.choices[0].message.content))

# seed: the same seed, the same sampled text; n choices.
sampled = dict(model="smollm2", messages=messages, temperature=1.0, max_tokens=24, seed=5, n=2)
a = [c.message.content for c in client.chat.completions.create(**sampled).choices]
b = [c.message.content for c in client.chat.completions.create(**sampled).choices]
check("seed gives the same text", a == b and len(a) == 2, f"{a} {b}")

# A JSON Schema: the answer validates.
schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
got = client.chat.completions.create(
    **{**greedy, "max_tokens": 48},
    response_format={"type": "json_schema", "json_schema": {"name": "city", "schema": schema, "strict": True}},
)
try:
    value = json.loads(got.choices[0].message.content)
    check("json_schema", isinstance(value, dict) and isinstance(value.get("city"), str), repr(value))
except ValueError as e:
    check("json_schema", False, f"{got.choices[0].message.content!r}: {e}")

# An error: the client raises BadRequestError with the server's message.
try:
    client.chat.completions.create(**greedy, top_p=1.5)
    check("a bad parameter raises BadRequestError", False, "no error")
except openai.BadRequestError as e:
    check("a bad parameter raises BadRequestError", "top_p = 1.5" in str(e), str(e))

print(f"python client: {len(failed)} of the checks failed" if failed else "python client: every check passed")
sys.exit(1 if failed else 0)
