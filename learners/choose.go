package learners

// StepNames are the settings that choose a step size of the first-order
// learner (Ouyang & Gray (KDD 2012)), in the order a conflict is reported.
var StepNames = []string{"nasa", "nasa_strong", "nasa_accel", "scalar_adagrad", "sadagrad"}

// ADANames are the settings that choose an FD-adaptive learner (the names
// of ada.Lookup, and ADAFull), in the order a conflict is reported.
var ADANames = []string{"ada_fd", "ada_ffd", "ftsl", "ftfsl", "sada", "sada_fast", ADAFull}
