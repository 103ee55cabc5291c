package measure

import "encoding/json"

// MarshalJSON writes a summary as summary.json. A sweep's top level ran
// nothing, so it leaves out the top level's totals, overshoot,
// populations, kv, cost and worst keys rather than write zeros that a gate
// would read as a clean run; Worst and Points hold the numbers.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary // without this method
	if len(s.Points) == 0 {
		return json.Marshal(plain(s))
	}
	// Fields of the outer struct hide the embedded ones of the same JSON
	// name; nil and omitempty, they are left out.
	return json.Marshal(struct {
		plain
		Totals      *Totals       `json:"totals,omitempty"`
		Overshoot   *Overshoot    `json:"overshoot,omitempty"`
		Populations []Population  `json:"populations,omitempty"`
		KV          *KVWork       `json:"kv,omitempty"`
		Cost        *Cost         `json:"cost,omitempty"`
		WorstKeys   []KeyTimeline `json:"worst_keys,omitempty"`
	}{plain: plain(s)})
}
