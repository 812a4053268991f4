package serve

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// TestOfficialPythonClient runs testdata/openai_client.py, which drives the
// server with OpenAI's own Python library (the openai package, pinned in
// kernel/requirements.txt and installed in kernel/.venv by make install),
// against a server this test starts on a loopback port and stops.
func TestOfficialPythonClient(t *testing.T) {
	m := smolLM2(t)
	root, err := testmodel.Root()
	if err != nil {
		t.Fatal(err)
	}
	python := filepath.Join(root, "kernel/.venv/bin/python")
	if err := exec.Command(python, "-c", "import openai").Run(); err != nil {
		if testmodel.Required() {
			t.Fatalf("%s cannot import openai (%v): run make install", python, err)
		}
		t.Skipf("%s cannot import openai (%v): make install installs it", python, err)
	}
	_, url := start(t, Config{Models: []*Model{m}, APIKey: "course-key"})
	question := "What is the capital of France?"
	prompt, err := m.Tokenizer.ChatPrompt([]engine.Message{{Role: "user", Content: question}}, true)
	if err != nil {
		t.Fatal(err)
	}
	answer, _, _, _ := engineText(t, m, prompt, decoding.Options{MaxNewTokens: 32})
	expected, _ := json.Marshal(map[string]string{"question": question, "answer": answer})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "testdata/openai_client.py", url+"/v1", string(expected))
	// The server is on loopback: no proxy a machine sets may stand between.
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the Python client's checks: %v\n%s", err, out)
	}
}
