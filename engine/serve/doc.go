// Package serve answers the OpenAI API's chat and completion requests with
// the course's engine: the same loop the lessons build, behind the HTTP
// API that most people meet it through. Any client of that API (the
// official openai libraries, editors, notebooks, curl) can talk to it.
//
// New makes a Server for a list of models; its Handler serves
//
//	POST /v1/chat/completions   messages rendered with the model's own chat template
//	POST /v1/completions        a plain prompt
//	GET  /v1/models             the models, with their context lengths
//	GET  /health                {"status": "ok"}
//
// Each request parameter is a stage of the engine that a lesson builds:
//
//	parameter                         engine                          lesson
//	max_tokens, max_completion_tokens Options.MaxNewTokens            08 when to stop
//	temperature (default 1; 0 greedy) Options.Temperature             03 greedy, 04 sampling
//	top_p                             Options.TopP                    04 sampling
//	top_k, min_p (extensions)         Options.TopK, Options.MinP      04 sampling
//	presence_penalty,                 Options.PresencePenalty,        05 penalties
//	frequency_penalty                 Options.FrequencyPenalty
//	repetition_penalty (extension)    Options.RepetitionPenalty       05 penalties
//	logit_bias (-100 bans)            Options.LogitBias               05 penalties
//	stop (a string or up to 4)        Options.Stop                    08 when to stop
//	seed                              Options.Seed                    11 same prompt, different outputs
//	n (up to 8; choice i: seed+i)     one generation a choice         11 same prompt, different outputs
//	logprobs, top_logprobs (0–20)     Step.LogProb, Step.TopLogProbs  02 logits and softmax
//	response_format json_object,      Options.Constraint              14 structured output
//	json_schema
//	stream, stream_options            Step.Text as it is released     08 when to stop (streaming)
//
// A request that sets no max_tokens generates until the model ends its
// text or the context is full, as the API does, or at most
// Config.DefaultMaxTokens when the server sets it (the serve command sets
// 512: a small model that rambles to the end of its context takes
// minutes on a laptop's cores).
//
// usage counts the prompt's tokens and the generated ones (an end token
// included, as the engine counts it). finish_reason is the API's "stop"
// (the model ended the text, a stop string, a complete structured answer)
// or "length" (max_tokens, or the context full); engine_finish_reason
// keeps the engine's own reason.
//
// A bad request gets the API's error shape, {"error": {"message", "type",
// "param", "code"}}, never a crash: 400 naming the parameter and its
// value, 400 context_length_exceeded for a prompt with no room to
// generate, 404 model_not_found, 413 for a body over the limit, 401
// invalid_api_key when the server has a key and the request does not
// bring it. Fields the API does not define are ignored, as the API's own
// servers ignore them; a field it defines that this server cannot honour
// (tools, audio, images, echo…) is refused by name, never dropped.
//
// Many requests are answered at once by continuous batching (package
// engine/schedule): every step of a model is one batched forward pass
// over the next token of every generation running, and chunks of new
// prompts, so the weights are read once a step for all of them. A
// generation joins between two steps and leaves at once; its tokens are
// the same, bit for bit, as if it ran alone. Config.Unbatched runs each
// generation's passes on their own instead.
//
// Memory is bounded by the configuration: the models' weights, and for
// each generation running at once (Config.Concurrent) at most one KV
// cache of the model's context; requests past the running ones wait, up
// to Config.Queue, and past that get 429 with Retry-After. A client that
// disconnects cancels its generation, which leaves the batch at the next
// step.
package serve
