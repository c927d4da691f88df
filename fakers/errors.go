package fakers

import (
	"net/http"
	"strings"
)

// An apiError is the RS error envelope's error object (docs/RS-CONTRACT.md §1.4).
type apiError struct {
	status               int // overrides the code's status (fault injection)
	Code                 string
	Message              string
	Param                string
	RetryWith            string
	AvailableConnections []map[string]any
	Extra                map[string]any
	// ref is how the reference RS words this error, served on a RealRS
	// fixture (realRS set by serve); nil: as above.
	ref    *refText
	realRS bool
}

type refText struct{ param, message string }

// asReference records the reference RS's param ("" for none) and message
// for this error: a RealRS fixture answers with those (M6, M8).
func (e *apiError) asReference(param, message string) *apiError {
	e.ref = &refText{param: param, message: message}
	return e
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func errf(code, param, msg string) *apiError {
	return &apiError{Code: code, Param: param, Message: msg}
}

// statusOf maps codes to statuses; unknown codes are 500.
func statusOf(code string) int {
	if strings.HasPrefix(code, "context.") || strings.HasPrefix(code, "authorization_state.") {
		return http.StatusUnauthorized
	}
	switch code {
	case "invalid_request", "invalid_argument", "invalid_cursor", "invalid_expand", "invalid_sort", "invalid_field_path",
		"invalid_window", "unknown_field", "unsupported_version":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "field_not_granted", "insufficient_scope", "grant_stream_not_allowed", "grant_expired", "grant_revoked", "grant_invalid",
		"permission_error":
		return http.StatusForbidden
	case "not_found", "blob_not_found", "connection_not_found", "field_not_found", "query_not_found", "stream_not_declared":
		return http.StatusNotFound
	case "ambiguous_connection", "ambiguous_schema_detail":
		return http.StatusConflict
	case "cursor_expired":
		return http.StatusGone
	case "field_not_text":
		return http.StatusUnprocessableEntity
	}
	return http.StatusInternalServerError
}

// typeOf derives the error type purely from the status.
func typeOf(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 410:
		return "gone_error"
	case 413:
		return "request_entity_too_large_error"
	case 429:
		return "rate_limit_error"
	}
	return "api_error"
}

func writeError(w http.ResponseWriter, r *http.Request, reqID string, e *apiError) {
	status := statusOf(e.Code)
	if e.status != 0 {
		status = e.status
	}
	msg, param := e.Message, e.Param
	if e.realRS && e.ref != nil {
		msg, param = e.ref.message, e.ref.param
	}
	obj := map[string]any{"type": typeOf(status), "code": e.Code, "message": msg, "request_id": reqID}
	if param != "" {
		obj["param"] = param
	}
	if e.RetryWith != "" {
		obj["retry_with"] = e.RetryWith
	}
	if e.AvailableConnections != nil {
		obj["available_connections"] = e.AvailableConnections
	}
	for k, v := range e.Extra {
		obj[k] = v
	}
	if status == http.StatusUnauthorized {
		meta := "http://" + r.Host + "/.well-known/oauth-protected-resource"
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+meta+`"`)
		obj["resource_metadata"] = meta
		obj["next_step"] = "Fetch error.resource_metadata, then obtain a grant-scoped client token; do not use an owner token."
		if e.realRS {
			obj["next_step"] = referenceNextStep
		}
	}
	writeJSON(w, status, map[string]any{"error": obj})
}
