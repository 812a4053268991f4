package similar

import "testing"

// classSize is the class of the benchmarks: 100 learners, every exercise.
const classSize = 100

// benchClass returns, for every exercise, its material, the files of a
// class of classSize learners (nil for one who did not submit) and their
// fingerprints.
func benchClass(b *testing.B) ([]exercise, []map[string]map[string][]byte, []map[string]*Fingerprint) {
	b.Helper()
	var exs []exercise
	var files []map[string]map[string][]byte
	var fps []map[string]*Fingerprint
	for _, name := range exerciseNames(b) {
		ex := loadExercise(b, name)
		class := classFiles(b, ex, classSize)
		fp := map[string]*Fingerprint{}
		for learner, f := range class {
			if f != nil {
				fp[learner] = Of(f, ex.base)
			}
		}
		exs, files, fps = append(exs, ex), append(files, class), append(fps, fp)
	}
	return exs, files, fps
}

// BenchmarkClass compares a class of 100 learners on all 13 exercises:
// every pair of learners and every learner with the reference, given their
// fingerprints. The class is built from few sources, so about a third of
// its pairs are copies, each reported with its spans: a worst case.
func BenchmarkClass(b *testing.B) {
	exs, _, fps := benchClass(b)
	b.ResetTimer()
	for b.Loop() {
		for i, ex := range exs {
			Class(ex.name, fps[i], ex.ref, Threshold, MinShared)
		}
	}
}

// BenchmarkClassNoCopies is BenchmarkClass with a threshold no pair
// reaches: the cost of comparing every pair alone, as in a class that
// copied nothing.
func BenchmarkClassNoCopies(b *testing.B) {
	exs, _, fps := benchClass(b)
	b.ResetTimer()
	for b.Loop() {
		for i, ex := range exs {
			Class(ex.name, fps[i], ex.ref, 1.01, MinShared)
		}
	}
}

// BenchmarkFingerprintClass fingerprints a class of 100 learners on all 13
// exercises, bases and references included: the work before Class.
func BenchmarkFingerprintClass(b *testing.B) {
	exs, files, _ := benchClass(b)
	b.ResetTimer()
	for b.Loop() {
		for i, ex := range exs {
			base := NewBase(ex.stubs)
			Of(ex.sol, base)
			for _, f := range files[i] {
				if f != nil {
					Of(f, base)
				}
			}
		}
	}
}
