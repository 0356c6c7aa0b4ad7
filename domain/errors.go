package domain

import (
	"errors"
	"fmt"
)

// Error codes are stable: they reach callers as GraphQL extensions.code.
const (
	ENOTFOUND           = "NOT_FOUND"
	EINVALID            = "INVALID_ARGUMENT"
	ECROSSSCOPE         = "CROSS_SCOPE_REFERENCE"
	ECONFLICT           = "CONFLICT"
	EFORBIDDEN          = "FORBIDDEN"
	EUNAVAILABLE        = "UNAVAILABLE"
	EINTERNAL           = "INTERNAL"
	ETOOLARGE           = "PAYLOAD_TOO_LARGE"
	ESAMEPASS           = "SAME_PASS_ARCHIVE_REMOVE"
	ENOTARCHIVED        = "NOT_ARCHIVED"
	EREQUESTIDMISMATCH  = "REQUEST_ID_REUSED"
	ESHUTTINGDOWN       = "SHUTTING_DOWN"
	EDEADLINEEXCEEDED   = "DEADLINE_EXCEEDED"
	ECANCELED           = "CANCELED"
	EUNIMPLEMENTEDFIELD = "UNIMPLEMENTED"
)

// Error is the one error type of the domain: a stable code and a message fit for the caller.
type Error struct {
	Code    string
	Message string
	// Field names the input field at fault, when there is one.
	Field string
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Field)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns an INVALID_ARGUMENT error naming the field at fault.
func FieldErrorf(field, format string, args ...any) *Error {
	return &Error{Code: EINVALID, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, INTERNAL for errors that are not *Error, "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the caller-facing message of err; internal errors are not leaked verbatim.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		if e.Field != "" {
			return e.Field + ": " + e.Message
		}
		return e.Message
	}
	return "internal error"
}
