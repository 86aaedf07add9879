// Package deploy_test checks the deployment files offline: the compose file against the compose
// specification's JSON schema (check-jsonschema's vendored copy, PyPI), the Kubernetes manifests
// with kubernetes-validate --strict (PyPI, schemas shipped in the package), and both against the
// test bed's topology (docs/testbed.md): a round-robin balancer without stickiness in front of
// two web tiers sharing one session secret, a services host, two order processors over NATS
// JetStream in async-durable mode, PostgreSQL. .ci/run installs both validators; here a missing
// one skips, under CI it fails. No container runs: these machines build images but cannot run
// them, so the files are checked, not deployed.
package deploy_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// validator finds a validator command, or skips (fails under CI) when it is not installed.
func validator(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		msg := name + " is not installed (pip install check-jsonschema kubernetes-validate; .ci/run installs them)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// run runs a validator on file and returns its error and output.
func run(t *testing.T, cmd string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(cmd, args...).CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return string(out), err
}

// broken writes a copy of file with old replaced by new (the validator's negative control).
func broken(t *testing.T, file, old, new string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s has no %q to break", file, old)
	}
	p := filepath.Join(t.TempDir(), filepath.Base(file))
	if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type composeFile struct {
	Services map[string]struct {
		Image       string   `yaml:"image"`
		Command     []string `yaml:"command"`
		Environment map[string]string
		Deploy      struct {
			Replicas int `yaml:"replicas"`
		} `yaml:"deploy"`
		Ports    []string `yaml:"ports"`
		Profiles []string `yaml:"profiles"`
	} `yaml:"services"`
}

// TestComposeFile: deploy/compose/compose.yaml is valid under the compose specification's schema
// (a copy with a misspelt key is not: the validator is strict) and has the test bed's topology.
// Mutant: orders' "replicas" misspelt (scripts/mutants.d/testbed-compose-key), seen failing.
func TestComposeFile(t *testing.T) {
	cj := validator(t, "check-jsonschema")
	file := filepath.Join("compose", "compose.yaml")
	if out, err := run(t, cj, "--builtin-schema", "vendor.compose-spec", file); err != nil {
		t.Fatalf("%s is not a valid compose file: %v\n%s", file, err, out)
	}
	bad := broken(t, file, "      replicas: 2", "      replica: 2")
	if out, err := run(t, cj, "--builtin-schema", "vendor.compose-spec", bad); err == nil {
		t.Fatalf("the schema accepted a misspelt key:\n%s", out)
	}

	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	cmd := func(svc string) string { return strings.Join(c.Services[svc].Command, " ") }
	for _, w := range []string{"web1", "web2"} {
		if !strings.Contains(cmd(w), "serve --role web") || c.Services[w].Environment["TRADEBENCH_SESSION_SECRET"] == "" {
			t.Errorf("%s: %q, session secret %q: want a web tier with the shared session secret", w, cmd(w), c.Services[w].Environment["TRADEBENCH_SESSION_SECRET"])
		}
	}
	if !strings.Contains(cmd("bsl"), "serve --role bsl") || !strings.Contains(cmd("bsl"), "--orders async-durable") {
		t.Errorf("bsl: %q", cmd("bsl"))
	}
	if o := c.Services["orders"]; !strings.Contains(cmd("orders"), "serve --role orders") || !strings.Contains(cmd("orders"), "--orders async-durable") || o.Deploy.Replicas != 2 {
		t.Errorf("orders: %q × %d, want two async-durable order processors", cmd("orders"), o.Deploy.Replicas)
	}
	if !strings.Contains(cmd("nats"), "--jetstream") || !strings.HasPrefix(c.Services["postgres"].Image, "postgres:") {
		t.Errorf("nats %q, postgres %q: want JetStream and PostgreSQL", cmd("nats"), c.Services["postgres"].Image)
	}
	if h := c.Services["haproxy"]; !strings.HasPrefix(h.Image, "haproxy:") || len(h.Ports) != 1 || !strings.HasPrefix(h.Ports[0], "127.0.0.1:") {
		t.Errorf("haproxy %+v: want the balancer, published on loopback only", h)
	}
	cfg, err := os.ReadFile(filepath.Join("compose", "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	var directives []string // the lines that are not comments, trimmed
	for _, l := range strings.Split(string(cfg), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			directives = append(directives, l)
		}
	}
	hc := "\n" + strings.Join(directives, "\n") + "\n"
	if !strings.Contains(hc, "\nbalance roundrobin\n") || !strings.Contains(hc, "\nserver web1 web1:8080") || !strings.Contains(hc, "\nserver web2 web2:8080") ||
		strings.Contains(hc, "\ncookie ") || strings.Contains(hc, "\nstick") || strings.Contains(hc, "\nbalance source") || strings.Contains(hc, "\nhash-type") {
		t.Errorf("haproxy.cfg is not round-robin over web1 and web2 without stickiness:%s", hc)
	}
}

type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas int `yaml:"replicas"`
		Selector struct {
			App string `yaml:"app"` // a Service's selector
		} `yaml:"selector"`
		SessionAffinity string         `yaml:"sessionAffinity"`
		Template        k8sPodTemplate `yaml:"template"`
	} `yaml:"spec"`
}

type k8sPodTemplate struct {
	Spec struct {
		Containers []struct {
			Args []string `yaml:"args"`
			Env  []struct {
				Name string `yaml:"name"`
			} `yaml:"env"`
		} `yaml:"containers"`
	} `yaml:"spec"`
}

// TestKubernetesManifests: every manifest passes kubernetes-validate --strict (a copy with an
// unknown field does not), kustomization.yaml lists the test bed, and stocktrader.yaml is its
// topology: two web replicas behind a Service without session affinity, order processors as
// their own Deployment of two, a services host, JetStream, PostgreSQL.
// Mutant: the web Deployment's replicas misspelt (scripts/mutants.d/testbed-k8s-field), seen failing.
func TestKubernetesManifests(t *testing.T) {
	kv := validator(t, "kubernetes-validate")
	files, err := filepath.Glob(filepath.Join("kubernetes", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var manifests []string
	for _, f := range files {
		if filepath.Base(f) != "kustomization.yaml" { // kustomize's file, not a Kubernetes object
			manifests = append(manifests, f)
		}
	}
	if out, err := run(t, kv, append([]string{"--strict", "--quiet"}, manifests...)...); err != nil {
		t.Fatalf("kubernetes-validate --strict: %v\n%s", err, out)
	}
	st := filepath.Join("kubernetes", "stocktrader.yaml")
	bad := broken(t, st, "  replicas: 2\n  selector:\n    matchLabels: {app: stocktrader-web}", "  replica: 2\n  selector:\n    matchLabels: {app: stocktrader-web}")
	if out, err := run(t, kv, "--strict", "--quiet", bad); err == nil {
		t.Fatalf("kubernetes-validate --strict accepted an unknown field:\n%s", out)
	}
	kust, err := os.ReadFile(filepath.Join("kubernetes", "kustomization.yaml"))
	if err != nil || !strings.Contains(string(kust), "- stocktrader.yaml") {
		t.Fatalf("kustomization.yaml does not list stocktrader.yaml: %v", err)
	}

	f, err := os.Open(st)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	objs := map[string]k8sObject{}
	dec := yaml.NewDecoder(f)
	for {
		var o k8sObject
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		objs[o.Kind+"/"+o.Metadata.Name] = o
	}
	args := func(key string) string {
		o, ok := objs[key]
		if !ok || len(o.Spec.Template.Spec.Containers) == 0 {
			t.Fatalf("stocktrader.yaml has no %s", key)
		}
		return strings.Join(o.Spec.Template.Spec.Containers[0].Args, " ")
	}
	web := objs["Deployment/stocktrader-web"]
	if !strings.Contains(args("Deployment/stocktrader-web"), "serve --role web") || web.Spec.Replicas != 2 {
		t.Errorf("web: %q × %d, want two web replicas", args("Deployment/stocktrader-web"), web.Spec.Replicas)
	}
	secret := false
	for _, e := range web.Spec.Template.Spec.Containers[0].Env {
		secret = secret || e.Name == "TRADEBENCH_SESSION_SECRET"
	}
	if !secret {
		t.Error("the web replicas do not share a session secret")
	}
	svc := objs["Service/stocktrader"]
	if sel := svc.Spec.Selector.App; sel != "stocktrader-web" || (svc.Spec.SessionAffinity != "" && svc.Spec.SessionAffinity != "None") {
		t.Errorf("Service stocktrader: selector %v, session affinity %q: want the web replicas, no affinity", svc.Spec.Selector, svc.Spec.SessionAffinity)
	}
	if o := objs["Deployment/stocktrader-orders"]; !strings.Contains(args("Deployment/stocktrader-orders"), "serve --role orders") ||
		!strings.Contains(args("Deployment/stocktrader-orders"), "--orders async-durable") || o.Spec.Replicas != 2 {
		t.Errorf("orders: %q × %d, want a Deployment of two async-durable order processors", args("Deployment/stocktrader-orders"), o.Spec.Replicas)
	}
	if a := args("Deployment/stocktrader-bsl"); !strings.Contains(a, "serve --role bsl") || !strings.Contains(a, "--orders async-durable") {
		t.Errorf("bsl: %q", a)
	}
	if !strings.Contains(args("Deployment/stocktrader-nats"), "--jetstream") {
		t.Error("the order queue's NATS has no JetStream")
	}
	if _, ok := objs["StatefulSet/postgres"]; !ok {
		t.Error("no PostgreSQL")
	}
}
