package domain

import "github.com/google/uuid"

// NewID returns a fresh random UUID string.
func NewID() string { return uuid.NewString() }

// ValidID reports whether s is a canonical UUID.
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// CheckID returns an INVALID_ARGUMENT error naming field if s is not a UUID.
func CheckID(field, s string) error {
	if s == "" {
		return FieldErrorf(field, "is required")
	}
	if !ValidID(s) {
		return FieldErrorf(field, "is not a valid UUID: %q", truncate(s, 64))
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
