package runfile

// HostLine is the line that records key's value: a measured line for a
// key of MeasuredKeys, a configuration line for any other.
func HostLine(key, value string) string {
	if IsMeasured(key) {
		return MeasuredLine(key, value)
	}
	return ConfigLine(key, value)
}

// SettingLine is the setting line "# setting <case>: <note>".
func SettingLine(name, note string) string { return SettingPrefix + name + ": " + note }
