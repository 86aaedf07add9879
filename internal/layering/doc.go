// Package layering holds the test that keeps the tree's four groups apart, one rule each:
//
//   - the instrument (driver/, report/) imports no system under test and no job: a number is
//     only as trustworthy as the instrument's independence from the thing it measures;
//   - the systems under test (trade/, wstest/, cacheperf/, xmlmark/) import nothing of the
//     instrument, of the jobs or of each other: each can be read, built and changed alone;
//   - the jobs (bench/) combine a system with the instrument and are imported only by the command;
//     the conformance suite (bench/verify) imports no system: it sees every target over the wire;
//     its services mode (bench/verifyservices) imports the contract (trade) and its remote
//     clients (trade/remote), nothing of the server;
//   - the command (cmd/) maps flags to configuration and errors to exit codes.
//
// And one pipeline (TestOnePipeline): every job is a workload run by driver.Drive, the one place
// a run is put together (driver/pipeline.go); nothing else runs the load engine, fills the
// disclosure or draws the progress line and the live views.
//
// And one /proc reader (TestOneProcReader): internal/procfs is the only package that opens
// Linux's proc file system; the instrument and the systems read it through that package.
//
// Shared infrastructure (internal/) sits below all four and imports none of them.
package layering
