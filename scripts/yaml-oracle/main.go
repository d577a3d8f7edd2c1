// yaml-oracle reads YAML documents the way Go tools do, so the tests can check that what the
// renderer writes, and what its readers take, match go-yaml v2 (kubectl, via sigs.k8s.io/yaml)
// and go-yaml v3 (kpt and kustomize, via kyaml).
//
// Input on stdin: a JSON array of strings, each one YAML document. Output on stdout: a JSON array
// with, for each document, {"v2": R, "v3": R}, where R is {"value": V} or {"error": "..."} and V
// is the decoded value with its Go type kept:
//
//	null, true/false, "string", {"int": "42"}, {"float": "1.5" | "+Inf" | "-Inf" | "NaN"},
//	{"seq": [V...]}, {"map": [[K, V]...]} (pairs sorted by the JSON of K), {"other": "%T %v"}
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"

	yamlv2 "gopkg.in/yaml.v2"
	yamlv3 "gopkg.in/yaml.v3"
)

type result struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error *string         `json:"error,omitempty"`
}

func canonical(v interface{}) interface{} {
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		return x
	case string:
		return x
	case int:
		return map[string]string{"int": strconv.FormatInt(int64(x), 10)}
	case int64:
		return map[string]string{"int": strconv.FormatInt(x, 10)}
	case uint64:
		return map[string]string{"int": strconv.FormatUint(x, 10)}
	case float64:
		switch {
		case math.IsNaN(x):
			return map[string]string{"float": "NaN"}
		case math.IsInf(x, 1):
			return map[string]string{"float": "+Inf"}
		case math.IsInf(x, -1):
			return map[string]string{"float": "-Inf"}
		}
		return map[string]string{"float": strconv.FormatFloat(x, 'g', -1, 64)}
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = canonical(e)
		}
		return map[string]interface{}{"seq": out}
	case map[interface{}]interface{}:
		pairs := make([][2]interface{}, 0, len(x))
		for k, e := range x {
			pairs = append(pairs, [2]interface{}{canonical(k), canonical(e)})
		}
		return sortedMap(pairs)
	case map[string]interface{}:
		pairs := make([][2]interface{}, 0, len(x))
		for k, e := range x {
			pairs = append(pairs, [2]interface{}{k, canonical(e)})
		}
		return sortedMap(pairs)
	default:
		return map[string]string{"other": fmt.Sprintf("%T %v", v, v)}
	}
}

func sortedMap(pairs [][2]interface{}) interface{} {
	key := func(p [2]interface{}) string { b, _ := json.Marshal(p[0]); return string(b) }
	sort.Slice(pairs, func(i, j int) bool { return key(pairs[i]) < key(pairs[j]) })
	return map[string]interface{}{"map": pairs}
}

func decode(unmarshal func([]byte, interface{}) error, doc string) (r result) {
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("panic: %v", p)
			r = result{Error: &msg}
		}
	}()
	var v interface{}
	if err := unmarshal([]byte(doc), &v); err != nil {
		msg := err.Error()
		return result{Error: &msg}
	}
	b, err := json.Marshal(canonical(v))
	if err != nil {
		msg := err.Error()
		return result{Error: &msg}
	}
	return result{Value: b}
}

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var docs []string
	if err := json.Unmarshal(in, &docs); err != nil {
		fmt.Fprintln(os.Stderr, "yaml-oracle: stdin must be a JSON array of strings:", err)
		os.Exit(2)
	}
	out := make([]map[string]result, len(docs))
	for i, doc := range docs {
		out[i] = map[string]result{"v2": decode(yamlv2.Unmarshal, doc), "v3": decode(yamlv3.Unmarshal, doc)}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
