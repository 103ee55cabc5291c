package report

import (
	"math"
	"reflect"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// sanitized returns a deep copy of s with every NaN or infinite number
// replaced by 0, for summary.json (JSON has no NaN). The report warns when
// it happens (see nonFinite).
func sanitized(s *measure.Summary) *measure.Summary {
	v := fixFloats(reflect.ValueOf(s).Elem())
	out := v.Interface().(measure.Summary)
	return &out
}

// nonFinite counts the NaN and infinite numbers anywhere in s.
func nonFinite(s *measure.Summary) int {
	n := 0
	countFloats(reflect.ValueOf(s).Elem(), &n)
	return n
}

func fixFloats(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return reflect.Zero(v.Type())
		}
		return v
	case reflect.Struct:
		n := reflect.New(v.Type()).Elem()
		for i := 0; i < v.NumField(); i++ {
			if n.Field(i).CanSet() {
				n.Field(i).Set(fixFloats(v.Field(i)))
			}
		}
		return n
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		n := reflect.New(v.Type().Elem())
		n.Elem().Set(fixFloats(v.Elem()))
		return n
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			n.Index(i).Set(fixFloats(v.Index(i)))
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			n.SetMapIndex(it.Key(), fixFloats(it.Value()))
		}
		return n
	}
	return v
}

func countFloats(v reflect.Value, n *int) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			*n++
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			countFloats(v.Field(i), n)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			countFloats(v.Elem(), n)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			countFloats(v.Index(i), n)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			countFloats(it.Value(), n)
		}
	}
}
