package apperr

import "net/http"

// Code is an error code a client may see. It is a number, not a string, so
// that a code must be declared here to be used at all: an undeclared string
// given to a constructor does not compile, and the table below is the whole
// list the api can answer with (api/openapi.yaml lists it as the enum of the
// error body's code, and TestOpenAPIEnum keeps the two equal).
type Code uint8

// The codes, in the order of the table. Zero is no code.
const (
	CodeValidationFailed Code = iota + 1
	CodeMalformedJSON
	CodeEmptyBody
	CodeMalformedMultipart
	CodeIncompleteBody
	CodeBadForm
	CodeBadPath
	CodeIgnoredName
	CodeInvalidCaption
	CodeLocationUnreachable
	CodeUnauthorized
	CodeForbidden
	CodeMissingScope
	CodeUploadsDisabled
	CodeNotFound
	CodeRouteNotFound
	CodeContentMissing
	CodeMethodNotAllowed
	CodeConflict
	CodeVersionConflict
	CodeNameTaken
	CodeEmailTaken
	CodeBuiltinRole
	CodeBuiltinLocation
	CodeBuiltinProfile
	CodeRoleAssigned
	CodeGroupInUse
	CodeProfileInUse
	CodeCannotDisableSelf
	CodeCannotDeleteSelf
	CodeAlreadyInCompilation
	CodeTooManyCaptions
	CodeTooManyKeywordGroups
	CodePreconditionFailed
	CodeTooLarge
	CodeRangeNotSatisfiable
	CodeRateLimited
	CodeInternalError
	CodeContentRefused
	CodeArtifactRefused
	CodeProviderError
	CodeLocationUnavailable
	CodeUnavailable
	CodeNotConfigured
	// CodeFileStoreUnavailable: the store of the platform's own files (the
	// artifacts, the upload store: a bucket beyond one host) did not
	// answer.
	CodeFileStoreUnavailable

	codeEnd // one past the last code
)

// codes is the one table of codes: the name clients see and the status it
// is answered with.
var codes = [codeEnd]struct {
	name   string
	status int
}{
	CodeValidationFailed:     {"validation_failed", http.StatusBadRequest},
	CodeMalformedJSON:        {"malformed_json", http.StatusBadRequest},
	CodeEmptyBody:            {"empty_body", http.StatusBadRequest},
	CodeMalformedMultipart:   {"malformed_multipart", http.StatusBadRequest},
	CodeIncompleteBody:       {"incomplete_body", http.StatusBadRequest},
	CodeBadForm:              {"bad_form", http.StatusBadRequest},
	CodeBadPath:              {"bad_path", http.StatusBadRequest},
	CodeIgnoredName:          {"ignored_name", http.StatusBadRequest},
	CodeInvalidCaption:       {"invalid_caption", http.StatusBadRequest},
	CodeLocationUnreachable:  {"location_unreachable", http.StatusBadRequest},
	CodeUnauthorized:         {"unauthorized", http.StatusUnauthorized},
	CodeForbidden:            {"forbidden", http.StatusForbidden},
	CodeMissingScope:         {"missing_scope", http.StatusForbidden},
	CodeUploadsDisabled:      {"uploads_disabled", http.StatusForbidden},
	CodeNotFound:             {"not_found", http.StatusNotFound},
	CodeRouteNotFound:        {"route_not_found", http.StatusNotFound},
	CodeContentMissing:       {"content_missing", http.StatusNotFound},
	CodeMethodNotAllowed:     {"method_not_allowed", http.StatusMethodNotAllowed},
	CodeConflict:             {"conflict", http.StatusConflict},
	CodeVersionConflict:      {"version_conflict", http.StatusConflict},
	CodeNameTaken:            {"name_taken", http.StatusConflict},
	CodeEmailTaken:           {"email_taken", http.StatusConflict},
	CodeBuiltinRole:          {"builtin_role", http.StatusConflict},
	CodeBuiltinLocation:      {"builtin_location", http.StatusConflict},
	CodeBuiltinProfile:       {"builtin_profile", http.StatusConflict},
	CodeRoleAssigned:         {"role_assigned", http.StatusConflict},
	CodeGroupInUse:           {"group_in_use", http.StatusConflict},
	CodeProfileInUse:         {"profile_in_use", http.StatusConflict},
	CodeCannotDisableSelf:    {"cannot_disable_self", http.StatusConflict},
	CodeCannotDeleteSelf:     {"cannot_delete_self", http.StatusConflict},
	CodeAlreadyInCompilation: {"already_in_compilation", http.StatusConflict},
	CodeTooManyCaptions:      {"too_many_captions", http.StatusConflict},
	CodeTooManyKeywordGroups: {"too_many_keyword_groups", http.StatusConflict},
	CodePreconditionFailed:   {"precondition_failed", http.StatusPreconditionFailed},
	CodeTooLarge:             {"too_large", http.StatusRequestEntityTooLarge},
	CodeRangeNotSatisfiable:  {"range_not_satisfiable", http.StatusRequestedRangeNotSatisfiable},
	CodeRateLimited:          {"rate_limited", http.StatusTooManyRequests},
	CodeInternalError:        {"internal_error", http.StatusInternalServerError},
	// The file server's other refusals (a file it cannot seek or size):
	// answered with the status it chose, 500 in practice (WithStatus).
	CodeContentRefused:      {"content_refused", http.StatusInternalServerError},
	CodeArtifactRefused:     {"artifact_refused", http.StatusInternalServerError},
	CodeProviderError:       {"provider_error", http.StatusBadGateway},
	CodeLocationUnavailable: {"location_unavailable", http.StatusBadGateway},
	CodeUnavailable:         {"unavailable", http.StatusServiceUnavailable},
	CodeNotConfigured:       {"not_configured", http.StatusServiceUnavailable},
	// The artifact store's bucket is away: a gateway's answer, like an
	// item's location that does not answer.
	CodeFileStoreUnavailable: {"file_store_unavailable", http.StatusBadGateway},
}

// String is the code's name, as clients see it.
func (c Code) String() string {
	if c == 0 || c >= codeEnd {
		return "internal_error"
	}
	return codes[c].name
}

// Status is the HTTP status the code is answered with.
func (c Code) Status() int {
	if c == 0 || c >= codeEnd {
		return http.StatusInternalServerError
	}
	return codes[c].status
}

// MarshalText renders the code as its name in the JSON error body.
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Codes lists every code, in the table's order.
func Codes() []Code {
	out := make([]Code, 0, codeEnd-1)
	for c := Code(1); c < codeEnd; c++ {
		out = append(out, c)
	}
	return out
}
