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
package chat
