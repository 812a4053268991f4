// Command grade grades the exercise track: a learner's progress in their own
// checkout, or an instructor's grading of submissions.
//
// Usage:
//
//	go run ./exercises/grade [flags] [exercise ...]
//
// Run from a checkout of the course, for example:
//
//	go run ./exercises/grade                      # your progress: a row per exercise
//	go run ./exercises/grade 02-softmax 04        # only these exercises
//	go run ./exercises/grade -submission DIR      # grade another copy of the repository, a row per test
//	go run ./exercises/grade -submission DIR -hidden TESTS
//	go run ./exercises/grade -submissions CLASS -out grades
//
// The tests always come from the checkout the grader runs in; a submission
// supplies only the non-test .go files of each exercise. Each exercise is
// compiled in a scratch folder and each test runs in a process of its own,
// inside a bubblewrap sandbox, with a time and memory limit, so a panic, an
// endless loop or a compile error costs only the points it should.
// exercises/README.md says how points are declared, what graded code may
// do, and what the reports hold.
//
// The flags are:
//
//	-budget duration
//		Wall time one submission may take in all, compiling included;
//		what is not done by then scores nothing. (default 5m0s)
//	-cache folder
//		The grader's build folder (default: tokenbytoken/grade-build in
//		the user's cache folder), trimmed to 2 GiB after each grading.
//	-classroom file
//		Write the result JSON of GitHub Classroom's autograding reporter
//		to file.
//	-events file
//		Write the raw record to file: every test's output as go test -json
//		events, with the grader's verdict last.
//	-hidden folder
//		Add the instructor's hidden tests from folder/<exercise>/*_test.go.
//	-hidden-details
//		Show what failing hidden tests printed in the reports (graded code
//		sees a hidden test's inputs and can make its messages carry them:
//		for the instructor's eyes only).
//	-j int
//		Grade this many exercises at once (default: the number of CPUs).
//	-json file
//		Write the report as JSON (totals, public and hidden totals, every
//		test) to file.
//	-junit file
//		Write the report as JUnit XML, for CI test reporters, to file.
//	-markdown file
//		Write a Markdown summary, for a CI job page, to file.
//	-memory MiB
//		The memory limit of each test process, in MiB. (default 2048)
//	-min-score N
//		Exit with status 1 if the score is below N points. (default -1)
//	-no-sandbox
//		Run learner code without the bubblewrap sandbox (only for code you
//		trust; every report then says so first).
//	-out folder
//		With -submissions: write each learner's reports to
//		folder/learners/<learner>/, and class.csv and similarity.csv to
//		folder. (default "grades")
//	-race
//		Build the tests with the race detector: a data race fails its test
//		(default: true where the race detector is supported).
//	-submission folder
//		Grade this folder: a copy of the repository, or of its exercises/
//		folder (default: this checkout).
//	-submissions folder
//		Grade every subfolder of folder as one learner's submission;
//		reports go to -out.
//	-tests
//		Show every test, not a row per exercise (the default with
//		-submission; -tests=false for the rows).
//	-timeout duration
//		The time limit of each test. (default 10s)
//
// Exit status: 0 when grading ran, whatever the score; 1 when -min-score was
// given and not reached; 2 for a mistake on the command line; 3 when the
// grader itself could not run.
package main
