package gpx

// collect takes character data of the element being read. A name goes
// through the title's text.Builder, which keeps text.MaxTitle runes and
// drops the rest as it comes, so a name of megabytes is never copied whole;
// the XML decoder still holds one run of character data at a time, which
// the stream's size limit bounds.
func (st *parseState) collect(data []byte) {
	if st.textFor == "name" {
		st.title.Write(data)
		return
	}
	st.text = append(st.text, data...)
}
