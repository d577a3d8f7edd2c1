// gitops-oracles runs the readers that Argo CD and Flux apply to a ValkeyCluster, with their own
// libraries, so tests check our health script and our status against the real semantics:
//
//	gitops-oracles argocd-health SCRIPT.lua < object.json   # {"status":"Healthy","message":"..."}
//	gitops-oracles kstatus < object.json                    # {"status":"Current","message":"..."}
//
// argocd-health runs the script the way Argo CD runs a health script from
// resource.customizations (gopher-lua, standard libraries off: only package, base and table are
// opened, the object as the global `obj`, a one-second limit) and refuses a status Argo CD would
// turn into Unknown. kstatus is sigs.k8s.io/cli-utils' status.Compute, what Flux's health checks
// and `kstatus` read.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type verdict struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: gitops-oracles argocd-health SCRIPT.lua | kstatus  (object JSON on stdin)")
	}
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err.Error())
	}
	// Decoded as the API machinery decodes it (whole numbers are int64), as both readers see it.
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		fail("stdin is not a Kubernetes object in JSON: " + err.Error())
	}
	obj := u.Object
	var v verdict
	switch os.Args[1] {
	case "argocd-health":
		if len(os.Args) != 3 {
			fail("usage: gitops-oracles argocd-health SCRIPT.lua")
		}
		script, err := os.ReadFile(os.Args[2])
		if err != nil {
			fail(err.Error())
		}
		v, err = argoHealth(obj, string(script))
		if err != nil {
			fail(err.Error())
		}
	case "kstatus":
		res, err := status.Compute(u)
		if err != nil {
			fail(err.Error())
		}
		v = verdict{Status: res.Status.String(), Message: res.Message}
	default:
		fail("unknown command: " + os.Args[1])
	}
	out, _ := json.Marshal(v)
	fmt.Println(string(out))
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "gitops-oracles:", msg)
	os.Exit(2)
}

var argoStatuses = map[string]bool{"Healthy": true, "Progressing": true, "Degraded": true, "Suspended": true, "Missing": true, "Unknown": true}

func argoHealth(obj map[string]interface{}, script string) (verdict, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for name, open := range map[string]lua.LGFunction{lua.LoadLibName: lua.OpenPackage, lua.BaseLibName: lua.OpenBase, lua.TabLibName: lua.OpenTable} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(open), NRet: 0, Protect: true}, lua.LString(name)); err != nil {
			return verdict{}, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		return verdict{}, err
	}
	ret, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return verdict{}, fmt.Errorf("the script returned %s, not a table", l.Get(-1).Type())
	}
	v := verdict{Status: lua.LVAsString(ret.RawGetString("status")), Message: lua.LVAsString(ret.RawGetString("message"))}
	if !argoStatuses[v.Status] {
		return verdict{}, fmt.Errorf("the script returned status %q, which Argo CD shows as Unknown", v.Status)
	}
	return v, nil
}

// toLua converts decoded JSON the way Argo CD hands an object to a health script: objects are
// tables keyed by string, arrays are 1-based sequences, null is nil.
func toLua(l *lua.LState, value interface{}) lua.LValue {
	switch x := value.(type) {
	case bool:
		return lua.LBool(x)
	case float64:
		return lua.LNumber(x)
	case int64:
		return lua.LNumber(x)
	case string:
		return lua.LString(x)
	case []interface{}:
		t := l.CreateTable(len(x), 0)
		for _, item := range x {
			t.Append(toLua(l, item))
		}
		return t
	case map[string]interface{}:
		t := l.CreateTable(0, len(x))
		for k, item := range x {
			t.RawSetH(lua.LString(k), toLua(l, item))
		}
		return t
	}
	return lua.LNil
}
