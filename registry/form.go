package registry

// WithForm declares that the route also takes the body of an HTML form
// (application/x-www-form-urlencoded), whose fields are the input's
// arguments as a JSON body's would be: the target of a page's form, posted
// by a browser without any script. Other routes refuse such a body (415),
// so a page elsewhere cannot post one to them. An operation that reads a
// cookie and takes a form checks a CSRF token of its own.
func (r Route) WithForm() Route {
	r.form = true
	return r
}

// TakesForm reports whether the route was declared WithForm.
func (r Route) TakesForm() bool { return r.form }
