// Package engine runs Llama-architecture language models, one token at a
// time, in plain Go: the inference engine of the Token by Token course.
//
// It reads (and writes) the checkpoint and tokenizer files of llama2.c, so
// it runs the course's own models as well as any llama2.c model, such as
// the TinyStories models llama2.c published; and it reads GGUF files of
// the llama architecture, llama.cpp's format, such as
// SmolLM2-135M-Instruct, which the course installs. Package engine/models
// loads the course's models by name (models.Load); Load here reads any
// model file by its path.
//
// The files read top to bottom like the lessons:
//
//   - model.go, config.go, weights.go, checkpoint.go: the model, its shape
//     and weights, and the llama2.c file layout; matrices.go: the weights as the forward
//     pass reads them, each matrix a Matrix with its own products, float32
//     or quantized; arithmetic.go: how a pass rounds between its products
//     (run.c's float32, or llama.cpp's f16 keys and values and its order of
//     sums, which GGUF models follow); model_gguf.go, load.go: models from
//     GGUF files, and loading a model file of either format.
//   - tokenizer.go: text to token ids (byte-pair merges, byte fallback) and
//     back; tokenizer_gguf.go: a GGUF model's own tokenizer; chat.go: a
//     conversation in the model's chat format.
//   - forward.go, ops.go, matmul.go, kvcache.go, batch.go, prefill.go: the
//     transformer itself — RMSNorm, rotary position embeddings,
//     grouped-query attention over the KV cache, the SwiGLU MLP and the
//     vocabulary projection — for one token (decode), or for a batch of
//     rows, each a token of its own sequence with its own cache (Pass),
//     of which a whole prompt at once (prefill) is one kind; hidden.go
//     hands out the final hidden state that the vocabulary projection
//     multiplies, and parallel.go shares a pass's work among the cores.
//   - token_bytes.go: each token's bytes, and the vocabulary as a
//     constraint (package engine/constrain) sees it.
//   - lm.go: ModelLM and NoCacheLM, a Model seen as a language model that
//     scores next tokens, with and without its KV cache, for the decoders
//     of package engine/decoding.
//   - cost.go: floating-point operations, bytes and time per part of a step.
//   - memory.go: memory sized by the work asked, and refused with the numbers
//     when it cannot fit.
//
// Generation — the loop, sampling and every other decoder — is package
// engine/decoding; a minimal program is in its documentation.
package engine
