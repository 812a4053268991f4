package quant_test

import (
	"fmt"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/quant"
)

// A 2 × 32 matrix in Q8_0: one block a row, each a scale (f16) and 32
// signed bytes. Row 0 is 0.5 everywhere; row 1 is 0.5·(i − 16).
func Example() {
	data := make([]byte, 2*34)
	for r := range 2 {
		blk := data[34*r:]
		blk[0], blk[1] = 0x00, 0x38 // the scale, 0.5 as an f16
		for i := range 32 {
			q := 1
			if r == 1 {
				q = i - 16
			}
			blk[2+i] = byte(int8(q))
		}
	}
	m, err := quant.NewMatrix(gguf.Q8_0, 2, 32, data)
	if err != nil {
		fmt.Println(err)
		return
	}
	row := make([]float32, 32)
	m.Row(1, row)
	fmt.Println("row 1:", row[:4], "...")

	// x[0] = 31.75, x[i] = i/4: multiples of 31.75/127, so quantizing x
	// to 8 bits loses nothing and the products are exact.
	x := make([]float32, 32)
	x[0] = 31.75
	for i := 1; i < 32; i++ {
		x[i] = float32(i) / 4
	}
	var v quant.Vec
	m.Prepare(x, &v)
	out := make([]float32, 2)
	m.MulVec(out, &v, 0, 2)
	fmt.Println("W·x:", out)
	// Output:
	// row 1: [-8 -7.5 -7 -6.5] ...
	// W·x: [77.875 56]
}
