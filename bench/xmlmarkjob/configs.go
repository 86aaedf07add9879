package xmlmarkjob

import (
	"fmt"
	"strings"

	"github.com/tradebench/tradebench/xmlmark"
)

// ConfigTable is 'xmlmark configs': one line per built-in configuration, its users, mix, work
// and documents, in the old kit's terms.
func ConfigTable() (string, error) {
	var b strings.Builder
	for _, n := range xmlmark.BuiltinNames() {
		c, err := xmlmark.LoadConfig(n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%-5s users %d  dom %3d sax %3d pull %3d  selection %3d%%  content-mod %3d%%  structure-mod %3d%%  serialize %3d%%  docs %s\n",
			n, c.Agents, c.DOMUsage, c.SAXUsage, c.PullParserUsage, c.Selection, c.ContentModification,
			c.StructureModification, c.Serialization, strings.Join(c.XMLFiles, " "))
	}
	return b.String(), nil
}

// ConfigText is 'xmlmark configs NAME': the built-in configuration's INI text, or an error
// listing the built-ins.
func ConfigText(name string) (string, error) {
	b, ok := xmlmark.BuiltinINI(name)
	if !ok {
		return "", fmt.Errorf("no built-in configuration %q (built-ins: %s)", name, strings.Join(xmlmark.BuiltinNames(), ", "))
	}
	return string(b), nil
}
