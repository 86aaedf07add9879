package scenario

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
)

// A Feed is rows of data read from a CSV file for the virtual users (JMeter's CSV Data Set,
// k6's SharedArray, Gatling's feeders): a template reads a column of the user's current row as
// {{row.COLUMN}}. The rows are shared round-robin — each iteration of any user takes the next
// row, in file order, wrapping at the end — or, with PerUser, each virtual user keeps one row,
// user n the row n (wrapping when there are more users than rows).
type Feed struct {
	Columns []string
	Rows    [][]string
	// PerUser gives each user its own row; otherwise iterations take rows round-robin.
	PerUser bool
	next    atomic.Int64
}

// Bounds of a feed file: it is read whole into memory and shared by every user.
const (
	MaxFeedBytes   = 64 << 20
	MaxFeedRows    = 1_000_000
	MaxFeedColumns = 100
)

// ReadFeed reads a CSV feed: a header row naming the columns (plain identifiers, each once),
// then at least one row with a value for each column. name is used in errors (a file name).
// The reader is bounded: at most MaxFeedBytes, MaxFeedRows rows and MaxFeedColumns columns.
func ReadFeed(r io.Reader, name string) (*Feed, error) {
	lr := &io.LimitedReader{R: r, N: MaxFeedBytes + 1}
	cr := csv.NewReader(lr)
	cr.ReuseRecord = false
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty: the first row names the columns (e.g. user,symbol)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(header) > MaxFeedColumns {
		return nil, fmt.Errorf("%s: %d columns, at most %d", name, len(header), MaxFeedColumns)
	}
	f := &Feed{}
	seen := map[string]bool{}
	for _, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if !isIdent(h) {
			return nil, fmt.Errorf("%s: the first row names the columns: %q is not a column name (letters, digits and _, not starting with a digit)", name, h)
		}
		if seen[h] {
			return nil, fmt.Errorf("%s: column %q named twice", name, h)
		}
		seen[h] = true
		f.Columns = append(f.Columns, h)
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if lr.N <= 0 {
			return nil, fmt.Errorf("%s: larger than %d MiB", name, MaxFeedBytes>>20)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err) // a row of another width says its line
		}
		if len(f.Rows) == MaxFeedRows {
			return nil, fmt.Errorf("%s: more than %d rows", name, MaxFeedRows)
		}
		f.Rows = append(f.Rows, rec)
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, MaxFeedBytes>>20)
	}
	if len(f.Rows) == 0 {
		return nil, fmt.Errorf("%s: a header row and no data rows", name)
	}
	return f, nil
}

// column is the index of a column, or an error naming the columns there are.
func (f *Feed) column(name string) (int, error) {
	if f == nil {
		return 0, fmt.Errorf("{{row.%s}} reads a data row, and no data rows are given", name)
	}
	for i, c := range f.Columns {
		if c == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("{{row.%s}}: no such column (columns: %s)", name, strings.Join(f.Columns, ", "))
}

// row is the row env's user reads in its current iteration: its own (PerUser), or the one its
// iteration took round-robin — every hole of one iteration reads the same row.
func (f *Feed) row(env Env) []string {
	n := len(f.Rows)
	if f.PerUser {
		return f.Rows[env.UserID()%n]
	}
	d := env.Draws()
	if it := env.IterNum(); !d.rowTaken || d.rowIter != it {
		d.row, d.rowIter, d.rowTaken = int((f.next.Add(1)-1)%int64(n)), it, true
	}
	return f.Rows[d.row]
}
