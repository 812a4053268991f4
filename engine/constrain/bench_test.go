package constrain

import (
	"os"
	"testing"
)

func benchCompile(b *testing.B, compile func() (*Grammar, error)) {
	for b.Loop() {
		if _, err := compile(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	city, err := os.ReadFile("testdata/city.json")
	if err != nil {
		b.Fatal(err)
	}
	jsonG, err := os.ReadFile("testdata/json.gbnf")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("schema=city", func(b *testing.B) { benchCompile(b, func() (*Grammar, error) { return JSONSchema(city) }) })
	b.Run("grammar=json", func(b *testing.B) { benchCompile(b, func() (*Grammar, error) { return ParseGrammar(string(jsonG)) }) })
	b.Run("regexp=date", func(b *testing.B) {
		benchCompile(b, func() (*Grammar, error) { return Regexp(`[0-9]{4}-(0[1-9]|1[0-2])-[0-3][0-9]`) })
	})
}
