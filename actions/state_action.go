package actions

import "errors"

// SignAction signs c as a's state: it sets c.Kind from a, c.TreeID from a
// tree action's TreeID, and replaces a.State with the signed token.
func (s *Signer) SignAction(a *Action, c Claims) error {
	if a == nil {
		return errors.New("signing action state: no action")
	}
	c.Kind = a.Kind
	c.TreeID = ""
	if a.Kind == KindTree && a.Tree != nil {
		c.TreeID = a.Tree.TreeID
	}
	tok, err := s.Sign(c)
	if err != nil {
		return err
	}
	a.State, a.StateIsJSON = tok, false
	return nil
}

// VerifyFeedback verifies the state echoed by f and checks that it was
// issued for an action of f's kind and, for a tree, for f's tree. Every
// failure wraps ErrStateInvalid.
func (s *Signer) VerifyFeedback(f *Feedback) (*Claims, error) {
	tok, ok := f.StateString()
	if !ok {
		return nil, invalid("malformed: the state is not a string")
	}
	c, err := s.Verify(tok)
	if err != nil {
		return nil, err
	}
	if c.Kind != f.Action {
		return nil, invalid("it was issued for a %q action, the feedback answers a %q action", c.Kind, f.Action)
	}
	if f.Action == KindTree && c.TreeID != f.TreeID {
		return nil, invalid("it was issued for tree %q, the feedback names tree %q", c.TreeID, f.TreeID)
	}
	return c, nil
}
