package xmlmark

import (
	"embed"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/ini.v1"
)

// The XML Mark paper's nine configurations, byte for byte as printed (including its "XML_ FILE_1"
// spelling, which the parser accepts).
//
//go:embed configs/*.ini
var builtinFS embed.FS

// Config is an XML Mark run configuration: the old kit's INI keys.
type Config struct {
	Name string // built-in name (DOM4) or the INI file's path

	Agents int // worker goroutines (the closed model's users; no think time)

	// The transaction mix. The old kit had one streaming parser per platform: the Java harness
	// read SAXUsage, the C# one PullParserUsage, so the original kit's streaming configs set both to 100.
	// tradebench has both (sax = gosax, pull = encoding/xml) and treats the three keys as relative
	// weights: DOM configs run only tree transactions, SAX configs half sax and half pull, each
	// reported as its own transaction.
	PullParserUsage, SAXUsage, DOMUsage int

	// Percentages of line items (0–100).
	Selection, ContentModification, StructureModification int
	// Validation is the percentage of transactions (of each kind: dom, sax and pull) that validate
	// their document against the invoice schema (XSD); Serialization the percentage of tree
	// transactions that serialize theirs. Both are spread evenly over the transactions.
	Validation, Serialization int

	// Phase lengths. The INI values are whole seconds, as the original kit's comments say.
	RampUp, SteadyState, RampDown time.Duration

	// XMLFiles are XML_FILE_1 … XML_FILE_<XMLDocCount>, as written.
	XMLFiles []string

	// Read for completeness; tradebench generates the schema itself and writes results where
	// --out says.
	SchemaFile, OutputDir, OutputFilePrefix string

	// dir resolves relative XML_FILE paths (the INI file's directory; "" for built-ins).
	dir string
}

// BuiltinNames lists the built-in configurations.
func BuiltinNames() []string {
	ents, _ := builtinFS.ReadDir("configs")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".ini"))
	}
	sort.Strings(names)
	return names
}

// BuiltinINI returns a built-in configuration's INI text (name case-insensitive, ".ini" optional).
func BuiltinINI(name string) ([]byte, bool) {
	n := strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(name, ".ini"), ".INI"))
	b, err := builtinFS.ReadFile("configs/" + n + ".ini")
	return b, err == nil
}

// LoadConfig loads a built-in configuration by name (DOM1…DOM6, SAX1…SAX3) or an INI file by path.
// A path that exists wins over a built-in name.
func LoadConfig(nameOrPath string) (*Config, error) {
	if _, err := os.Stat(nameOrPath); err == nil {
		data, err := os.ReadFile(nameOrPath)
		if err != nil {
			return nil, err
		}
		c, err := ParseConfig(nameOrPath, data)
		if err != nil {
			return nil, err
		}
		c.dir = filepath.Dir(nameOrPath)
		return c, nil
	}
	if data, ok := BuiltinINI(nameOrPath); ok {
		return ParseConfig(strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(nameOrPath, ".ini"), ".INI")), data)
	}
	return nil, fmt.Errorf("%q is neither an INI file nor a built-in configuration (built-ins: %s)",
		nameOrPath, strings.Join(BuiltinNames(), ", "))
}

// canonical key names, by normalized form (lower case, no spaces or underscores)
var knownKeys = map[string]string{}

func init() {
	for _, k := range []string{"Agents", "PullParserUsage", "SAXUsage", "DOMUsage", "Selection", "Validation",
		"ContentModification", "StructureModification", "Serialization", "RampUp", "SteadyState", "RampDown",
		"XMLDocCount", "SchemaFile", "OutputDir", "OutputFilePrefix"} {
		knownKeys[normKey(k)] = k
	}
}

// normKey folds case and drops spaces and underscores, so "XML_ FILE_1" (as the XML Mark paper prints it),
// "XML_FILE_1" and "xml_file_1" are one key.
func normKey(k string) string {
	return strings.ToLower(strings.NewReplacer(" ", "", "\t", "", "_", "").Replace(k))
}

var fileKey = regexp.MustCompile(`^xmlfile([0-9]+)$`)

// ParseConfig parses INI text in the old kit's format. Keys may be in a [CONFIG] section (as the
// original kit's files) or at the top; every error names the key.
func ParseConfig(name string, data []byte) (*Config, error) {
	f, err := ini.LoadSources(ini.LoadOptions{SpaceBeforeInlineComment: true, AllowShadows: true}, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// The original kit's files use [CONFIG]; accept any case, or keys without a section.
	var sec *ini.Section
	for _, s := range f.Sections() {
		if strings.EqualFold(s.Name(), "config") {
			sec = s
		}
	}
	if sec == nil {
		sec = f.Section(ini.DefaultSection)
	}
	k, err := readKeys(name, sec)
	if err != nil {
		return nil, err
	}
	c := &Config{Name: name}
	if c.Agents, err = k.intKey("Agents", 1, 10000, 0, true); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		key string
		dst *int
	}{{"PullParserUsage", &c.PullParserUsage}, {"SAXUsage", &c.SAXUsage}, {"DOMUsage", &c.DOMUsage},
		{"Selection", &c.Selection}, {"Validation", &c.Validation}, {"ContentModification", &c.ContentModification},
		{"StructureModification", &c.StructureModification}, {"Serialization", &c.Serialization}} {
		if *p.dst, err = k.pct(p.key); err != nil {
			return nil, err
		}
	}
	if c.DOMUsage+c.SAXUsage+c.PullParserUsage == 0 {
		return nil, fmt.Errorf("%s: DOMUsage, SAXUsage and PullParserUsage are all 0: set at least one above 0", name)
	}
	if c.RampUp, err = k.seconds("RampUp", false); err != nil {
		return nil, err
	}
	if c.SteadyState, err = k.seconds("SteadyState", true); err != nil {
		return nil, err
	}
	if c.SteadyState <= 0 {
		return nil, fmt.Errorf("%s: SteadyState must be above 0 seconds", name)
	}
	if c.RampDown, err = k.seconds("RampDown", false); err != nil {
		return nil, err
	}
	if c.XMLFiles, err = k.documents(); err != nil {
		return nil, err
	}
	c.SchemaFile, c.OutputDir, c.OutputFilePrefix = k.vals["SchemaFile"], k.vals["OutputDir"], k.vals["OutputFilePrefix"]
	return c, nil
}

// configKeys are a configuration file's keys, read once and checked for what no single setting
// can see (a key unknown or set twice), so each setting's reader only parses its value.
type configKeys struct {
	name  string            // the file, for messages
	vals  map[string]string // canonical name -> value
	raw   map[string]string // canonical name -> key as written (for messages)
	files map[int]string    // XML_FILE_n -> its value
}

// readKeys reads the keys of sec: XML_FILE_n by number, the others by their canonical name.
func readKeys(name string, sec *ini.Section) (*configKeys, error) {
	k := &configKeys{name: name, vals: map[string]string{}, raw: map[string]string{}, files: map[int]string{}}
	for _, key := range sec.Keys() {
		if len(key.ValueWithShadows()) > 1 {
			return nil, fmt.Errorf("%s: key %s is set more than once", name, key.Name())
		}
		nk := normKey(key.Name())
		if m := fileKey.FindStringSubmatch(nk); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%s: key %q: the file number must be 1 or more", name, key.Name())
			}
			k.files[n] = strings.TrimSpace(key.Value())
			continue
		}
		canon, ok := knownKeys[nk]
		if !ok {
			return nil, fmt.Errorf("%s: unknown key %q (known keys: Agents, PullParserUsage, SAXUsage, DOMUsage, Selection, Validation, "+
				"ContentModification, StructureModification, Serialization, RampUp, SteadyState, RampDown, XMLDocCount, XML_FILE_n, "+
				"SchemaFile, OutputDir, OutputFilePrefix)", name, key.Name())
		}
		if _, dup := k.vals[canon]; dup {
			return nil, fmt.Errorf("%s: key %s is set twice", name, canon)
		}
		k.vals[canon] = strings.TrimSpace(key.Value())
		k.raw[canon] = key.Name()
	}
	return k, nil
}

// intKey is a whole number from lo to hi (def when the key is absent and not required).
func (k *configKeys) intKey(key string, lo, hi int, def int, required bool) (int, error) {
	v, ok := k.vals[key]
	if !ok {
		if required {
			return 0, fmt.Errorf("%s: missing key %s", k.name, key)
		}
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s: %s = %q: want a whole number from %d to %d", k.name, k.raw[key], v, lo, hi)
	}
	return n, nil
}

// pct is a percentage of the mix, 0 when absent.
func (k *configKeys) pct(key string) (int, error) {
	n, err := k.intKey(key, 0, 100, 0, false)
	if err != nil {
		return 0, fmt.Errorf("%w (a percentage)", err)
	}
	return n, nil
}

// seconds is a duration in the kit's seconds (ParseSeconds), 0 when absent and not required.
func (k *configKeys) seconds(key string, required bool) (time.Duration, error) {
	v, ok := k.vals[key]
	if !ok {
		if required {
			return 0, fmt.Errorf("%s: missing key %s", k.name, key)
		}
		return 0, nil
	}
	d, err := ParseSeconds(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %s = %q: %v", k.name, k.raw[key], v, err)
	}
	return d, nil
}

// documents are XML_FILE_1 … XML_FILE_n for n = XMLDocCount (by default as many as are set):
// every one set and none beyond, so a gap or a stray number is an error, not a smaller mix.
func (k *configKeys) documents() ([]string, error) {
	count, err := k.intKey("XMLDocCount", 1, 1000, len(k.files), false)
	if err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, fmt.Errorf("%s: no documents: set XMLDocCount and XML_FILE_1 (a file path, or a built-in document such as inv100.xml)", k.name)
	}
	for n := range k.files {
		if n > count {
			return nil, fmt.Errorf("%s: XML_FILE_%d is beyond XMLDocCount = %d", k.name, n, count)
		}
	}
	var out []string
	for n := 1; n <= count; n++ {
		f, ok := k.files[n]
		if !ok || f == "" {
			return nil, fmt.Errorf("%s: XMLDocCount = %d but XML_FILE_%d is missing or empty", k.name, count, n)
		}
		out = append(out, f)
	}
	return out, nil
}

// Check reports the first setting out of range, naming its field. ParseConfig checks what it
// reads; Check is for settings changed afterwards (the command's overrides), and Prepare runs it.
func (c *Config) Check() error {
	if c.Agents < 1 || c.Agents > 10000 {
		return fmt.Errorf("%s: Agents = %d: want a whole number from 1 to 10000", c.Name, c.Agents)
	}
	for _, p := range []struct {
		key string
		v   int
	}{{"PullParserUsage", c.PullParserUsage}, {"SAXUsage", c.SAXUsage}, {"DOMUsage", c.DOMUsage},
		{"Selection", c.Selection}, {"Validation", c.Validation}, {"ContentModification", c.ContentModification},
		{"StructureModification", c.StructureModification}, {"Serialization", c.Serialization}} {
		if p.v < 0 || p.v > 100 {
			return fmt.Errorf("%s: %s = %d: want a percentage from 0 to 100", c.Name, p.key, p.v)
		}
	}
	if c.DOMUsage+c.SAXUsage+c.PullParserUsage == 0 {
		return fmt.Errorf("%s: DOMUsage, SAXUsage and PullParserUsage are all 0: set at least one above 0", c.Name)
	}
	if c.SteadyState <= 0 || c.RampUp < 0 || c.RampDown < 0 {
		return fmt.Errorf("%s: SteadyState must be above 0 and RampUp, RampDown not negative (got %v, %v, %v)", c.Name, c.SteadyState,
			c.RampUp, c.RampDown)
	}
	if len(c.XMLFiles) == 0 {
		return fmt.Errorf("%s: no documents: set XMLDocCount and XML_FILE_1", c.Name)
	}
	return nil
}

// ParseSeconds parses a phase length: whole seconds as in the old kit's files ("180"), or a Go
// duration ("90s", "2m").
func ParseSeconds(v string) (time.Duration, error) {
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 || n > 7*24*3600 {
			return 0, fmt.Errorf("want seconds from 0 to 604800")
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want whole seconds (e.g. 180) or a duration (e.g. 3m)")
	}
	return d, nil
}

// builtinDoc matches the names of the built-in generated documents: inv<N>.xml or
// invoice<N>.xml (the old kit shipped inv100.xml and inv1000.xml).
var builtinDoc = regexp.MustCompile(`^inv(?:oice)?([0-9]+)\.xml$`)

// docSource says where XML_FILE_n's document comes from: a file that exists (relative to the INI
// file), else a built-in generated invoice named inv<N>.xml by its base name, so the original kit's files
// (..\\..\\docs\\inv100.xml) run unchanged.
func (c *Config) docSource(n int) (file string, lines int, err error) {
	v := c.XMLFiles[n]
	p := v
	if !filepath.IsAbs(p) && c.dir != "" {
		p = filepath.Join(c.dir, p)
	}
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, 0, nil
	}
	// Windows paths from the old kit: both "\\" (as printed) and "\" separate directories
	base := path.Base(strings.ReplaceAll(v, `\`, "/"))
	if m := builtinDoc.FindStringSubmatch(strings.ToLower(base)); m != nil {
		lines, err := strconv.Atoi(m[1])
		if err == nil && lines >= 1 && lines <= 1_000_000 {
			return "", lines, nil
		}
	}
	return "", 0, fmt.Errorf("XML_FILE_%d = %q: no such file, and not a built-in document name (inv<N>.xml, e.g. inv100.xml, generated "+
		"with N line items)", n+1, v)
}
