package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// apiError is an error in the API's own shape, with its HTTP status:
// {"error": {"message", "type", "param", "code"}}. Every refusal the server
// makes is one, so a client's library raises the exception it would for
// the API's own servers (openai.BadRequestError for a 400, and so on).
type apiError struct {
	Status  int     `json:"-"`
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
	// RetryAfter, in seconds, is sent as the Retry-After header of a 429
	// or 503.
	RetryAfter int `json:"-"`
}

func (e *apiError) Error() string { return e.Message }

// badParam is a 400 that names the parameter at fault and says what is
// wrong with its value.
func badParam(param, format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error",
		Message: fmt.Sprintf(format, args...), Param: &param}
}

// badRequest is a 400 about the request as a whole.
func badRequest(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: fmt.Sprintf(format, args...)}
}

// withCode sets the error's code, for the errors the API names:
// context_length_exceeded, model_not_found, invalid_api_key…
func (e *apiError) withCode(code string) *apiError {
	e.Code = &code
	return e
}

// writeError sends e as the response.
func writeError(w http.ResponseWriter, e *apiError) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	writeJSON(w, e.Status, map[string]*apiError{"error": e})
}

// writeJSON sends v as a JSON response with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"error":{"message":"the server could not write its answer","type":"server_error","param":null,"code":null}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
