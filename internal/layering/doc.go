// Package layering holds the test that keeps the measuring instrument apart from what it
// measures: the driver and the results model import no system under test, WSTest imports
// nothing of StockTrader, and nothing below bench/ imports a job. DESIGN.md's layout says why:
// a number is only as trustworthy as the instrument's independence from the thing measured,
// and a workload that leans on another cannot be read, built or changed on its own.
package layering
