package main

import (
	"errors"
	"io"
)

func bench(args []string, stdout io.Writer) error {
	return errors.New("bench: not built yet")
}
