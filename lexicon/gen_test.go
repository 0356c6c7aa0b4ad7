package lexicon

import (
	"os/exec"
)

// runGenerator checks wordnet.tbl against the database in dir with the generator's -check.
func runGenerator(dir string) ([]byte, error) {
	return exec.Command("go", "run", "./internal/wngen", "-dict", dir, "-out", "wordnet.tbl", "-check").CombinedOutput()
}
