"""Render the chat templates and feature probes in this folder with Hugging
Face transformers, the reference package chat's tests compare against.

transformers renders chat templates with Jinja2 in an immutable sandbox,
trim_blocks and lstrip_blocks on, raise_exception and strftime_now added
and tojson replaced by json.dumps; its render_jinja_template is what
apply_chat_template calls, without needing a tokenizer. strftime_now reads
a fixed clock here (2024-07-26 12:00), as the Go tests do.

templates/ holds the chat templates of the models each file is named
after, as those models publish them (in tokenizer_config.json); Meta's
Llama 3.2 template reads the date through strftime_now, and ChatGLM3's
keeps a space before a {{ }} tag that lstrip_blocks must not remove.

It renders:
  - every templates/*.jinja, and SmolLM2-135M-Instruct's template as read
    from its GGUF file, for every conversation in conversations.json, with
    add_generation_prompt false and true;
  - every template in features.json (small templates, one Jinja feature
    each) for one fixed conversation.
Each result is {"text": ...}, {"error": ...} or, for a template Jinja
refuses to compile, {"syntax_error": ...}. The output is reference.json.

Usage (Python 3.11; transformers 4.57.1, Jinja2 3.1.6, gguf 0.17.1):

    python3 -m venv /tmp/chatvenv
    /tmp/chatvenv/bin/pip install transformers==4.57.1 jinja2==3.1.6 gguf==0.17.1
    /tmp/chatvenv/bin/python reference.py MODEL.gguf > reference.json

where MODEL.gguf is kernel/.models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf.
"""

import datetime
import json
import pathlib
import sys

import jinja2
import transformers
from gguf import GGUFReader
from transformers.utils import chat_template_utils
from transformers.utils.chat_template_utils import _compile_jinja_template, render_jinja_template

assert transformers.__version__ == "4.57.1", transformers.__version__
assert jinja2.__version__ == "3.1.6", jinja2.__version__

HERE = pathlib.Path(__file__).parent
FIXED_NOW = datetime.datetime(2024, 7, 26, 12, 0, 0)


class FixedClock(datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return FIXED_NOW


chat_template_utils.datetime = FixedClock

# The special tokens each template is rendered with: the model's own.
TOKENS = {
    "HuggingFaceTB-SmolLM2-135M-Instruct": ("<|im_start|>", "<|im_end|>"),
    "meta-llama-Meta-Llama-3-8B-Instruct": ("<|begin_of_text|>", "<|eot_id|>"),
    "meta-llama-Llama-3.1-8B-Instruct": ("<|begin_of_text|>", "<|eot_id|>"),
    "meta-llama-Llama-3.2-3B-Instruct": ("<|begin_of_text|>", "<|eot_id|>"),
    "Qwen-Qwen2.5-7B-Instruct": ("", "<|im_end|>"),
    "mistralai-Mistral-7B-Instruct-v0.1": ("<s>", "</s>"),
    "mistralai-Mistral-Nemo-Instruct-2407": ("<s>", "</s>"),
    "google-gemma-2-2b-it": ("<bos>", "<eos>"),
    "THUDM-chatglm3-6b": ("", "</s>"),
}

FEATURE_MESSAGES = [
    {"role": "system", "content": " sys "},
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello"},
    {"role": "user", "content": "Q?"},
]


def gguf_template(path):
    reader = GGUFReader(path)
    field = reader.fields["tokenizer.chat_template"]
    return bytes(field.parts[field.data[0]]).decode("utf-8")


def render_template(source, bos, eos, conversations):
    out = {}
    for name, messages in conversations.items():
        for agp in (False, True):
            key = f"{name}/{'gen' if agp else 'nogen'}"
            try:
                text = render_jinja_template(
                    conversations=[messages],
                    chat_template=source,
                    add_generation_prompt=agp,
                    bos_token=bos,
                    eos_token=eos,
                )[0][0]
                out[key] = {"text": text}
            except Exception as e:
                out[key] = {"error": f"{type(e).__name__}: {e}"}
    return out


def main():
    conversations = json.loads((HERE / "conversations.json").read_text())
    sources = {p.stem: p.read_text() for p in sorted((HERE / "templates").glob("*.jinja"))}
    sources["HuggingFaceTB-SmolLM2-135M-Instruct"] = gguf_template(sys.argv[1])
    templates = {}
    for name, source in sorted(sources.items()):
        bos, eos = TOKENS[name]
        templates[name] = {
            "bos_token": bos,
            "eos_token": eos,
            "renders": render_template(source, bos, eos, conversations),
        }
    features = {}
    for name, source in sorted(json.loads((HERE / "features.json").read_text()).items()):
        try:
            compiled = _compile_jinja_template(source)
        except Exception as e:
            features[name] = {"syntax_error": f"{type(e).__name__}: {e}"}
            continue
        try:
            features[name] = {"text": compiled.render(
                messages=FEATURE_MESSAGES, tools=None, documents=None,
                add_generation_prompt=True, bos_token="<s>", eos_token="</s>")}
        except Exception as e:
            features[name] = {"error": f"{type(e).__name__}: {e}"}
    json.dump({"templates": templates, "features": features}, sys.stdout, indent=1, ensure_ascii=False, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
