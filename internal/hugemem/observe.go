package hugemem

import "errors"

// ErrUnobservable: whether memory is advised cannot be seen here (another system, no
// transparent huge pages, no /proc/self/smaps, an array too small to hold an aligned
// huge page).
var ErrUnobservable = errors.New("hugemem: the advice cannot be observed")
