package results

func sectionDefault(hosts []*Host) *Section {
	s := &Section{Report: "default", Title: "Default sweep: every variant on this framework's short set"}
	for _, h := range hosts {
		for _, r := range h.Runs {
			if r.Preset == "default" {
				t := Summary(r, "")
				t.ID = "default-" + h.Slug
				t.Title = "Default sweep — " + h.Title
				s.Tables = append(s.Tables, t)
			}
		}
	}
	return s
}
