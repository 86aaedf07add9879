package cliflag

import (
	"errors"

	"github.com/tradebench/tradebench/internal/setting"
)

// Names maps a component's Config fields (a *setting.Error's Field) to the flags that set
// them: the library checks a value and names the field, the command names the flag.
type Names map[string]string

// With is n and more together in a new Names (n's entry wins where both name a field): a
// command whose configuration embeds a shared part (the load shape's phases) names that part's
// flags once, where it is defined.
func (n Names) With(more ...Names) Names {
	all := Names{}
	for i := len(more) - 1; i >= 0; i-- {
		for k, v := range more[i] {
			all[k] = v
		}
	}
	for k, v := range n {
		all[k] = v
	}
	return all
}

// UsageError turns a component's configuration error into a command-line error (ErrUsage): a
// *setting.Error names the flag that sets the field, when there is one.
func (n Names) UsageError(err error) error {
	if f, msg, ok := n.Flag(err); ok {
		return Errorf("%s: %s", Dashed(f), msg)
	}
	return Errorf("%v", err)
}

// OrUsage is UsageError for a *setting.Error of a field with a flag, and err unchanged
// otherwise (for errors of a run that may also fail for other reasons).
func (n Names) OrUsage(err error) error {
	if _, _, ok := n.Flag(err); ok {
		return n.UsageError(err)
	}
	return err
}

// Flag is the flag that sets the field err names, and err's own message, when err is a
// *setting.Error of a field n knows.
func (n Names) Flag(err error) (flagName, msg string, ok bool) {
	var se *setting.Error
	if errors.As(err, &se) {
		if f, ok := n[se.Field]; ok {
			return f, se.Err.Error(), true
		}
	}
	return "", "", false
}
