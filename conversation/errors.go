package conversation

import (
	"errors"
	"fmt"

	"github.com/agentgw/agentgw/apierr"
)

// ProtocolError maps an error of a Repo about context id to the protocol's
// error: BAD_REQUEST for a malformed id or operation or a state nested
// too deep, INVALID_PARAMETERS (422) for a state path that cannot be set,
// CONTEXT_NOT_FOUND, CONTEXT_CONFLICT, PAYLOAD_TOO_LARGE,
// CONFLICT (409, not recoverable) for a record that cannot be decoded,
// and STORE_UNAVAILABLE for the rest
// (the store failed: the cause is wrapped, never shown).
func ProtocolError(id string, err error) *apierr.Error {
	switch {
	case errors.Is(err, ErrBadID):
		return apierr.Errorf(apierr.CodeBadRequest, "context id %q is malformed", id).
			Suggest("use a UUID or 1 to 128 characters of A-Z a-z 0-9 . _ : -")
	case errors.Is(err, ErrNotFound):
		return apierr.Errorf(apierr.CodeContextNotFound, "no context %q", id)
	case errors.Is(err, ErrExists):
		return apierr.Errorf(apierr.CodeContextConflict, "context %q exists already", id).
			Suggest("GET /contexts/{id} to use it, or create one with another id")
	case errors.Is(err, ErrConflict):
		return apierr.Errorf(apierr.CodeContextConflict, "context %q has changed since that version", id)
	case errors.Is(err, ErrTooLarge):
		return apierr.Errorf(apierr.CodePayloadTooLarge, "context %q: %v", id, err).
			Suggest("keep less in the context's state, or ask the operator to raise contexts.maxBytes")
	case errors.Is(err, ErrTooDeep):
		return apierr.Errorf(apierr.CodeBadRequest, "context %q: %v", id, err).
			Suggest("flatten the context's state or metadata, or ask the operator to raise contexts.maxDepth")
	case errors.Is(err, ErrUnreadable):
		return apierr.Errorf(apierr.CodeConflict, "context %q is stored in a form the gateway cannot read", id).
			Suggest("DELETE /contexts/{id} removes it; then create it again").Wrap(err)
	case errors.Is(err, ErrBadPath):
		return apierr.Errorf(apierr.CodeInvalidParameters, "context %q: %v", id, err).
			Suggest("a path's keys create the objects that are missing; an array is indexed by a number from 0 to its length - 1")
	case errors.Is(err, ErrBadOperation):
		return apierr.Errorf(apierr.CodeBadRequest, "%v", err).
			Suggest(`send {"operation":"UPDATE_STATE","state":{...},"version":N}, {"operation":"UPDATE_STATE","path":"a.b","value":...}, {"operation":"CLEAR_HISTORY","filter":{"beforeTimestamp":T}?} or {"operation":"ADD_MESSAGE","message":{...}}, bare or as {"type":"CONTEXT_UPDATE","content":{...}}`)
	}
	return apierr.New(apierr.CodeStoreUnavailable, "the gateway's store is unavailable: it could not read or keep the context").
		Wrap(fmt.Errorf("context %s: %w", id, err))
}
