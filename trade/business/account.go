package business

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
)

// Login checks the password and counts the login. An unknown user id and a wrong password
// get the same error (trade.LoginRefused), after the same bcrypt work; after
// Options.LoginMaxFailures of them for one user id from one client (trade.ClientOf ctx) within
// trade.LoginWindow, that client's logins of that id are refused until the window has passed,
// and after ten times as many from one client across user ids, all its logins (loginThrottle).
func (s *Service) Login(ctx context.Context, userID, password string) (trade.Account, error) {
	if err := checkUser(userID); err != nil {
		return trade.Account{}, err
	}
	if err := trade.ValidateField("password", password, true); err != nil {
		return trade.Account{}, err
	}
	client := trade.ClientOf(ctx)
	if wait, perClient := s.logins.retryAfter(userID, client); wait > 0 {
		wait = wait.Round(time.Second) + time.Second // whole seconds, never early
		what := "for this user id"
		if perClient {
			what = "from this client"
		}
		return trade.Account{}, &trade.Error{Code: trade.CodeTooManyRequests, RetryAfter: wait,
			Message: fmt.Sprintf("too many failed logins %s: try again in %v", what, wait)}
	}
	hash, err := s.st.PasswordHash(ctx, userID)
	known := err == nil
	if errors.Is(err, store.ErrNotFound) {
		hash, err = string(s.dummyHash), nil
	}
	if err != nil {
		return trade.Account{}, err
	}
	// Checked outside the transaction: bcrypt is deliberately slow and must not hold locks.
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil || !known {
		s.logins.fail(userID, client)
		return trade.Account{}, trade.Errorf(trade.CodeUnauthorized, trade.LoginRefused)
	}
	var a trade.Account
	err = s.st.Update(ctx, func(tx store.Tx) error {
		var err error
		if a, err = tx.LockAccount(ctx, userID); err != nil {
			return missing(err, trade.LoginRefused)
		}
		a.LoginCount++
		a.LastLogin = now()
		return tx.UpdateAccount(ctx, a)
	})
	return a, err
}

// Logout counts the logout.
func (s *Service) Logout(ctx context.Context, userID string) error {
	if err := checkUser(userID); err != nil {
		return err
	}
	return s.st.Update(ctx, func(tx store.Tx) error {
		a, err := tx.LockAccount(ctx, userID)
		if err != nil {
			return missing(err, "no user %q", userID)
		}
		a.LogoutCount++
		return tx.UpdateAccount(ctx, a)
	})
}

// Register creates an account whose balance is the opening balance.
func (s *Service) Register(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	return s.register(ctx, r, false)
}

// RegisterAndLogin is Register and then Login with the same password
// (trade.RegisterLoginer): the account is created with its first login counted, and the
// password is hashed once and not verified against the hash just made. The failed-login
// throttle is not consulted: it guards against guessing a password, and the registrant has
// just chosen this one (a taken user id is refused as by Register).
func (s *Service) RegisterAndLogin(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	return s.register(ctx, r, true)
}

// register creates the account, logged in once if login.
func (s *Service) register(ctx context.Context, r trade.RegisterRequest, login bool) (trade.Account, error) {
	if err := trade.ValidateRegister(r); err != nil {
		return trade.Account{}, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(r.Password), s.opts.HashCost)
	if err != nil {
		// bcrypt refuses passwords over 72 bytes.
		return trade.Account{}, trade.Errorf(trade.CodeInvalid, "password cannot be used: %v", err)
	}
	t := now()
	a := trade.Account{UserID: r.UserID, Balance: r.OpenBalance, OpenBalance: r.OpenBalance, CreationDate: t, LastLogin: t}
	if login {
		a.LoginCount = 1
	}
	p := trade.AccountProfile{UserID: r.UserID, FullName: r.FullName, Address: r.Address, Email: r.Email, CreditCard: r.CreditCard}
	return once(ctx, s, trade.KindRegister, r.UserID, func(ctx context.Context, _ trade.RequestKey) (trade.Account, error) {
		return s.GetAccountData(ctx, r.UserID)
	}, func(claim claimFunc) (trade.Account, error) {
		err := s.st.Update(ctx, func(tx store.Tx) error {
			id, err := tx.CreateAccount(ctx, a, p, string(hash))
			if errors.Is(err, store.ErrDuplicate) {
				return trade.Errorf(trade.CodeConflict, "user id %q is already taken", r.UserID)
			}
			if err != nil {
				return err
			}
			a.AccountID = id
			return claim(tx, 0)
		})
		if err != nil {
			return trade.Account{}, err
		}
		return a, nil
	})
}

// GetAccountData returns the account of userID.
func (s *Service) GetAccountData(ctx context.Context, userID string) (trade.Account, error) {
	return s.account(ctx, s.st, userID)
}

// GetAccountProfileData returns the profile of userID (never the password).
func (s *Service) GetAccountProfileData(ctx context.Context, userID string) (trade.AccountProfile, error) {
	if err := checkUser(userID); err != nil {
		return trade.AccountProfile{}, err
	}
	p, err := s.st.Profile(ctx, userID)
	return p, missing(err, "no user %q", userID)
}

// GetAccountWithProfile returns the account of userID and its profile (never the password) in
// one statement (trade.AccountWithProfileGetter).
func (s *Service) GetAccountWithProfile(ctx context.Context, userID string) (trade.Account, trade.AccountProfile, error) {
	if err := checkUser(userID); err != nil {
		return trade.Account{}, trade.AccountProfile{}, err
	}
	a, p, err := s.st.AccountWithProfile(ctx, userID)
	return a, p, missing(err, "no user %q", userID)
}

// GetAccountSummary returns the account of userID and the summary of its holdings in one
// statement (trade.AccountSummaryGetter).
func (s *Service) GetAccountSummary(ctx context.Context, userID string) (trade.Account, trade.HoldingsSummary, error) {
	if err := checkUser(userID); err != nil {
		return trade.Account{}, trade.HoldingsSummary{}, err
	}
	a, sum, err := s.st.AccountSummary(ctx, userID)
	return a, sum, missing(err, "no user %q", userID)
}

// UpdateAccountProfile changes the profile fields and, if p.Password is set, the password. A
// password change also counts a logout: web sessions are stamped with the logout count, so
// every session of the user started before the change ends (the web tier that made the change
// re-stamps its own).
func (s *Service) UpdateAccountProfile(ctx context.Context, p trade.AccountProfile) (trade.AccountProfile, error) {
	if err := checkUser(p.UserID); err != nil {
		return trade.AccountProfile{}, err
	}
	if err := trade.ValidateProfile(p); err != nil {
		return trade.AccountProfile{}, err
	}
	var hash string
	if p.Password != "" {
		h, err := bcrypt.GenerateFromPassword([]byte(p.Password), s.opts.HashCost)
		if err != nil {
			return trade.AccountProfile{}, trade.Errorf(trade.CodeInvalid, "password cannot be used: %v", err)
		}
		hash = string(h)
	}
	return once(ctx, s, trade.KindProfile, p.UserID, func(ctx context.Context, _ trade.RequestKey) (trade.AccountProfile, error) {
		return s.GetAccountProfileData(ctx, p.UserID)
	}, func(claim claimFunc) (trade.AccountProfile, error) {
		return s.updateProfile(ctx, p, hash, claim)
	})
}

// updateProfile writes p (and hash, if set) in one transaction that claim joins.
func (s *Service) updateProfile(ctx context.Context, p trade.AccountProfile, hash string, claim claimFunc) (trade.AccountProfile, error) {
	var out trade.AccountProfile
	err := s.st.Update(ctx, func(tx store.Tx) error {
		if hash != "" {
			a, err := tx.LockAccount(ctx, p.UserID)
			if err != nil {
				return missing(err, "no user %q", p.UserID)
			}
			a.LogoutCount++
			if err := tx.UpdateAccount(ctx, a); err != nil {
				return err
			}
		}
		if err := tx.UpdateProfile(ctx, p, hash); err != nil {
			return missing(err, "no user %q", p.UserID)
		}
		var err error
		if out, err = tx.Profile(ctx, p.UserID); err != nil {
			return err
		}
		return claim(tx, 0)
	})
	return out, err
}
