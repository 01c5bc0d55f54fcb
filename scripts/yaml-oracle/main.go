// yaml-oracle writes YAML exactly as controller-gen does, for kube-markers' differential tests
// of its own YAML writer.
//
// Default mode: one JSON object per line on stdin; each is written as controller-gen's
// genall.WriteYAML writes an object: encoding/json decodes it into a map[string]any (every
// number a float64, as after controller-gen's first json.Marshal of its typed object and
// json.Unmarshal back), encoding/json marshals that map, and sigs.k8s.io/yaml's JSONToYAML
// (go-yaml v2) turns the text into YAML. Each document is preceded by "---\n".
//
// -emitter: the same input straight into JSONToYAML, skipping encoding/json. For strings that
// encoding/json leaves raw and go-yaml's reader then refuses or folds (DEL, C1 controls,
// U+FFFE, U+FFFF), so that the emitter's escaping of them can still be compared; controller-gen
// itself cannot write such strings.
//
// -to-json: one YAML document on stdin (a controller-gen output file), printed as JSON, so
// tests can compare controller-gen's objects with ours.
//
// -read: one JSON string per line, the text of a YAML document; prints one line for each: the
// JSON kubectl makes of it (sigs.k8s.io/yaml's YAMLToJSON, go-yaml v2 read as YAML 1.1, then
// the numbers as kubectl's unstructured decoding has them: int64 or float64), or
// {"yaml-oracle-error": "..."} when it refuses the text. For the differential test of the
// reader of check-crds.
//
// -kubectl: one line of base64 per file, its bytes; prints one line for each: the JSON array
// of the objects `kubectl create -f FILE` reads from it (cli-runtime's FileVisitor: the bytes
// through unicode.BOMOverride(UTF8 decoder), apimachinery's YAMLOrJSONDecoder, empty and null
// documents skipped, numbers as -read has them), or {"yaml-oracle-error": "..."}.
//
// -key-order: one JSON array of distinct strings per line; prints each as a JSON array in the
// order go-yaml v2 writes them as mapping keys (its keyList sort), so tests
// can ask Go how it orders any two keys.
//
// -key-order-tables: prints the Rust source of the tables of unicode.IsLetter and
// unicode.IsDigit above Latin-1 that go-yaml's key order consults, from this Go's unicode
// package.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode"

	goyaml "go.yaml.in/yaml/v2"
	textunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	var err error
	switch mode {
	case "":
		err = eachLine(controllerGenYAML, "---\n")
	case "-emitter":
		err = eachLine(yaml.JSONToYAML, "---\n")
	case "-key-order":
		err = eachLine(keyOrder, "")
	case "-to-json":
		err = toJSON()
	case "-read":
		err = eachLine(readLine, "")
	case "-kubectl":
		err = eachLine(kubectlLine, "")
	case "-key-order-tables":
		err = keyOrderTables()
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "yaml-oracle: %v\n", err)
		os.Exit(1)
	}
}

// controllerGenYAML is the path of genall's yamlMarshal after its first json.Marshal.
func controllerGenYAML(object []byte) ([]byte, error) {
	var generic map[string]any
	if err := json.Unmarshal(object, &generic); err != nil {
		return nil, err
	}
	text, err := json.Marshal(generic)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(text)
}

// eachLine converts each line of stdin, writing separator before each result.
func eachLine(convert func([]byte) ([]byte, error), separator string) error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for line := 1; in.Scan(); line++ {
		doc, err := convert(in.Bytes())
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		out.WriteString(separator)
		out.Write(doc)
	}
	return in.Err()
}

func keyOrder(line []byte) ([]byte, error) {
	var keys []string
	if err := json.Unmarshal(line, &keys); err != nil {
		return nil, err
	}
	// Each key's value is a marker found once in the output; reading the YAML back instead
	// would apply YAML's own meaning to keys such as "<<".
	marker := func(i int) string { return fmt.Sprintf("kube-markers-key-order-%d-end", i) }
	mapping := make(map[string]string, len(keys))
	for i, k := range keys {
		mapping[k] = marker(i)
	}
	text, err := goyaml.Marshal(mapping)
	if err != nil {
		return nil, err
	}
	position := make(map[string]int, len(keys))
	for i, k := range keys {
		if strings.Count(string(text), marker(i)) != 1 {
			return nil, fmt.Errorf("key %q: its marker is not found exactly once", k)
		}
		position[k] = strings.Index(string(text), marker(i))
	}
	ordered := append([]string(nil), keys...)
	sort.Slice(ordered, func(i, j int) bool { return position[ordered[i]] < position[ordered[j]] })
	out, err := json.Marshal(ordered)
	return append(out, '\n'), err
}

func readLine(line []byte) ([]byte, error) {
	var text string
	if err := json.Unmarshal(line, &text); err != nil {
		return nil, err
	}
	out, err := yaml.YAMLToJSON([]byte(text))
	if err == nil {
		out, err = kubectlNumbers(out)
	}
	if err != nil {
		out, _ = json.Marshal(map[string]string{"yaml-oracle-error": err.Error()})
	}
	return append(out, '\n'), nil
}

// kubectlNumbers is a JSON document as kubectl sends it after its unstructured decoding:
// every number an int64 when it is one, else a float64.
func kubectlNumbers(doc []byte) ([]byte, error) {
	var obj interface{}
	if err := utiljson.Unmarshal(doc, &obj); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

func kubectlLine(line []byte) ([]byte, error) {
	data, err := base64.StdEncoding.DecodeString(string(line))
	if err != nil {
		return nil, err
	}
	out, err := kubectlDocuments(data)
	if err != nil {
		out, _ = json.Marshal(map[string]string{"yaml-oracle-error": err.Error()})
	}
	return append(out, '\n'), nil
}

func kubectlDocuments(data []byte) ([]byte, error) {
	reader := transform.NewReader(bytes.NewReader(data), textunicode.BOMOverride(textunicode.UTF8.NewDecoder()))
	decoder := k8syaml.NewYAMLOrJSONDecoder(reader, 4096)
	docs := []json.RawMessage{}
	for {
		var raw json.RawMessage
		err := decoder.Decode(&raw)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		doc, err := kubectlNumbers(raw)
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
	return json.Marshal(docs)
}

func toJSON() error {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	out, err := yaml.YAMLToJSON(in)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(out)
	return err
}

func keyOrderTables() error {
	var b strings.Builder
	b.WriteString("// @generated by `yaml-oracle -key-order-tables` (scripts/yaml-oracle) with Go's unicode " + unicode.Version + ".\n")
	b.WriteString("//! Go's `unicode.IsLetter` (category L) and `unicode.IsDigit` (category Nd) above Latin-1, as\n")
	b.WriteString("//! inclusive code point ranges: go-yaml v2's key order depends on them.\n\n")
	writeRanges(&b, "LETTERS", unicode.IsLetter)
	b.WriteString("\n")
	writeRanges(&b, "DIGITS", unicode.IsDigit)
	_, err := os.Stdout.WriteString(b.String())
	return err
}

func writeRanges(b *strings.Builder, name string, in func(rune) bool) {
	var ranges [][2]rune
	for r := rune(0x100); r <= unicode.MaxRune; r++ {
		if !in(r) {
			continue
		}
		if n := len(ranges); n > 0 && ranges[n-1][1] == r-1 {
			ranges[n-1][1] = r
		} else {
			ranges = append(ranges, [2]rune{r, r})
		}
	}
	fmt.Fprintf(b, "#[rustfmt::skip]\npub(super) const %s: &[(u32, u32)] = &[\n", name)
	for i, r := range ranges {
		if i%5 == 0 {
			b.WriteString("   ")
		}
		fmt.Fprintf(b, " (0x%05X, 0x%05X),", r[0], r[1])
		if i%5 == 4 || i == len(ranges)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString("];\n")
}
