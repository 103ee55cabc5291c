// Package kubernetes holds overshoot's Kubernetes manifests (Indexed Jobs
// for sharded runs) and a test that decodes each into the Kubernetes API
// types, strictly, so that a misspelt or misplaced field fails here rather
// than in a cluster. It is its own module, so that the project does not
// depend on the Kubernetes API packages.
package kubernetes

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decode reads a manifest into out, refusing unknown and duplicate fields.
func decode(t *testing.T, file string, out any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, out); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// TestManifestsDecode decodes every manifest as the kind it declares.
func TestManifestsDecode(t *testing.T) {
	files, _ := filepath.Glob("*.yaml")
	if len(files) == 0 {
		t.Fatal("no manifests")
	}
	for _, f := range files {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		b, _ := os.ReadFile(f)
		if err := yaml.Unmarshal(b, &head); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		switch head.APIVersion + " " + head.Kind {
		case "batch/v1 Job":
			decode(t, f, &batchv1.Job{})
		case "v1 PersistentVolumeClaim":
			decode(t, f, &corev1.PersistentVolumeClaim{})
		default:
			t.Errorf("%s: %s %s is not a kind this test knows: add it", f, head.APIVersion, head.Kind)
		}
	}
}

// shardArg returns the N of a container's -shard I/N argument, and whether
// I is the pod's completion index.
func shardArg(args []string) (n int, indexed bool) {
	for i, a := range args {
		if a == "-shard" && i+1 < len(args) {
			idx, count, _ := strings.Cut(args[i+1], "/")
			n, _ = strconv.Atoi(count)
			return n, idx == "$(JOB_COMPLETION_INDEX)"
		}
	}
	return 0, false
}

// TestShardJobs: a sharded run is an Indexed Job whose completions and
// parallelism are the N of -shard I/N, with I the completion index, and
// whose volumes are claims that exist.
func TestShardJobs(t *testing.T) {
	var pvc corev1.PersistentVolumeClaim
	decode(t, "shards-volume.yaml", &pvc)
	for _, f := range []string{"simulate-shards.yaml", "attack-shards.yaml"} {
		var job batchv1.Job
		decode(t, f, &job)
		s := job.Spec
		if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
			t.Errorf("%s: completionMode is not Indexed", f)
		}
		c := s.Template.Spec.Containers[0]
		n, indexed := shardArg(c.Args)
		if !indexed || s.Completions == nil || s.Parallelism == nil || int(*s.Completions) != n || int(*s.Parallelism) != n {
			t.Errorf("%s: -shard %d (index from JOB_COMPLETION_INDEX: %v), completions %v, parallelism %v: keep them equal",
				f, n, indexed, s.Completions, s.Parallelism)
		}
		if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: restartPolicy %q: use Never, so that a failed shard is retried by the Job with its index", f, s.Template.Spec.RestartPolicy)
		}
	}
	for _, f := range []string{"simulate-shards.yaml", "simulate-merge.yaml", "attack-shards.yaml", "attack-merge.yaml"} {
		var job batchv1.Job
		decode(t, f, &job)
		for _, v := range job.Spec.Template.Spec.Volumes {
			if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != pvc.Name {
				t.Errorf("%s: volume %s is not the claim %s of shards-volume.yaml", f, v.Name, pvc.Name)
			}
		}
	}
}
