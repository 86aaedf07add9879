package driver

import (
	"fmt"

	"github.com/tradebench/tradebench/internal/secretfile"
)

// MinLiveTokenLen is the shortest Config.LiveToken read from a file: a token short enough to
// guess is no access control.
const MinLiveTokenLen = 16

// ReadLiveToken reads the live views' token (Config.LiveToken) from path: a file of the user's
// own, unreadable by others (secretfile.Read), holding at least MinLiveTokenLen characters.
func ReadLiveToken(path string) (string, error) {
	return secretfile.Read(path, "live token", func(t string) error {
		if len(t) < MinLiveTokenLen {
			return fmt.Errorf("the live token must be at least %d characters", MinLiveTokenLen)
		}
		return nil
	})
}
