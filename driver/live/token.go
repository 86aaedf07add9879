package live

import (
	"fmt"

	"github.com/tradebench/tradebench/internal/secretfile"
)

// MinTokenLen is the shortest Options.Token read from a file: a token short enough to guess is
// no access control.
const MinTokenLen = 16

// ReadToken reads the live views' token from path: a file of the user's own, unreadable by
// others (secretfile.Read), holding at least MinTokenLen characters.
func ReadToken(path string) (string, error) {
	return secretfile.Read(path, "live token", func(t string) error {
		if len(t) < MinTokenLen {
			return fmt.Errorf("the live token must be at least %d characters", MinTokenLen)
		}
		return nil
	})
}
