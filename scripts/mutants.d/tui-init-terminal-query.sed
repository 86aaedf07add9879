# an init in the smart client's package asks the terminal for its background colour, as Bubble Tea v1's did for every command
# kill: ./cmd/tradebench TestNoTerminalQueryOnAQuietTerminal
# file: trade/tui/client.go
# expect: wrote an escape sequence
s/^\t"io"$/\t"io"\n\t"os"/
$a\
\
func init() { os.Stdout.WriteString("\\x1b]11;?\\x1b\\\\") }
