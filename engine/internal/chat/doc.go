// Package chat renders a conversation into a model's prompt with the
// model's own chat template, the Jinja template that a GGUF file keeps in
// tokenizer.chat_template (and a Hugging Face model in
// tokenizer_config.json). A prompt rendered here is the text Hugging Face
// transformers' apply_chat_template renders for the same messages:
// SmolLM2-135M-Instruct's, for instance, is ChatML with a default system
// message added when the conversation has none.
//
// Parse reads a template once; Render renders it for a list of messages.
// The template sees the variables Hugging Face gives it: messages,
// add_generation_prompt, bos_token, eos_token, and tools and documents as
// None. The language is the part of Jinja that chat templates use, with
// Jinja's semantics as Hugging Face configures them:
//
//   - whitespace: trim_blocks and lstrip_blocks on, a single trailing
//     newline dropped, and the "-" and "+" markers in tags;
//   - statements: if/elif/else, for (with else, an if filter, unpacking,
//     loop.index and the rest, break and continue), set (names, tuples,
//     namespace attributes, blocks), macro, filter, with, block, raw, and
//     Hugging Face's generation tag;
//   - values as in Python: None, booleans, ints, floats, strings, lists,
//     tuples and dicts that keep their insertion order, printed as Python
//     prints them; Python's arithmetic, comparisons, "in", slices and
//     negative indices; the string, dict and list methods templates call
//     (strip, startswith, split, items, get and the like);
//   - Jinja's filters and tests (tojson being Python's json.dumps, which
//     Hugging Face substitutes), and the globals range, namespace, dict,
//     raise_exception and strftime_now.
//
// What a template may not do fails with an error rather than rendering
// something else. Jinja's undefined values print as nothing and are
// false, but using one further (an attribute of it, arithmetic) is a
// RenderError naming what was missing, as in Jinja. Methods that change a
// value in place (list.append, dict.update) are refused, as Hugging Face's
// immutable sandbox refuses them. Jinja filters this package does not
// implement (groupby, truncate and a few more that chat templates do not
// use) fail when used; call blocks, recursive loops, include and import
// are refused by Parse. A template that calls raise_exception fails with a
// RenderError whose Raised field is set and whose Msg is the template's
// message: that is how templates refuse conversations they cannot
// render, such as a system message for a model without one.
//
// A template is untrusted input: Parse and Render never panic on it, and
// Render bounds the output and every string it builds by a multiple of
// the input's size, the work by a step count, range() by 100,000 items
// and macro recursion by depth.
//
// # Why not a Jinja library
//
// github.com/ardanlabs/jinja v1.8.0, a Go Jinja engine for chat templates,
// was compared with this package on its 310 template tests (the nine
// models' templates on 8 conversations with and without the generation
// prompt, and the 166 one-feature templates), given the same variables,
// strftime_now on the same clock, and line breaks normalized first. It
// rendered 206 as Hugging Face does: 120 of 144 model renderings and 86
// of 166 features. What it got wrong:
//
//   - whitespace (15): lstrip_blocks strips before {{ }} tags too, so
//     ChatGLM3's "<|user|>\n {{ content }}" loses its space (14
//     renderings); "  {%+ if true %}x" loses the "x" as well.
//   - errors rendered as text (27): messages[0] of an empty conversation
//     prints "" instead of failing with an UndefinedError (10 renderings
//     of Qwen 2.5, Gemma 2, Llama 3.1 and 3.2, Mistral Nemo); {{ 1 / 0 }}
//     prints 0, {{ 'a' + 1 }} prints a1, l.append(1) runs instead of being
//     refused, range(200000) is allowed.
//   - parsing (17): valid Jinja refused, such as a nested dict literal
//     {'a': {'b': 1}}, 1e3, "is divisibleby 2" without parentheses,
//     {% set a, b = 1, 2 %}, the with and block tags; invalid Jinja
//     accepted, such as {{ }} and {% set x = %}.
//   - Python's values (13): none prints "" instead of None, 2.0 prints
//     2, a tuple prints as a list, and 10 // -3 is -3 instead of -4.
//   - semantics (32): a {% set %} in a loop body outlives its iteration
//     ("[a][a][a]" instead of "[a][][]"); map('upper') is a no-op,
//     sort(attribute=...) does not sort, batch drops its fill value;
//     center, format, attr, str.isdigit and list.count do not exist; two
//     uses of select and selectattr panic.
//
// Nor is it safe on untrusted templates, and wrapping cannot make it so:
// it has no limit on steps, output or range size and no way to stop a
// render, so two nested loops over range(100000) run until killed;
// {{ 'x' * 100000000000 }} and indent(100000000000) end the process out
// of memory, and a recursive macro or a namespace holding itself ends it
// with a stack overflow, neither of which recover can catch; {{ messages
// | select }} and tojson(indent=-1) panic.
package chat
