package main

import (
	"errors"
	"fmt"

	"github.com/sparseson/sparseson/engine"
	"github.com/sparseson/sparseson/gd"
)

// validateMulticlass checks --oaa, --softmax, --probabilities and
// --max_memory against the other flags.
func (c *config) validateMulticlass() error {
	multi := c.oaa > 0 || c.softmax > 0
	switch {
	// 0 is the flags' "not given"; given, it would train a binary model.
	case c.oaa < 0 || c.oaa == 1 || c.oaa > gd.MaxClasses || c.changed("oaa") && c.oaa == 0:
		return fmt.Errorf("--oaa %d: want 2..%d classes", c.oaa, gd.MaxClasses)
	case c.softmax < 0 || c.softmax == 1 || c.softmax > gd.MaxClasses || c.changed("softmax") && c.softmax == 0:
		return fmt.Errorf("--softmax %d: want 2..%d classes", c.softmax, gd.MaxClasses)
	case c.oaa > 0 && c.softmax > 0:
		return errors.New("choose --oaa or --softmax, not both")
	case multi && (c.binary || c.link != "identity"):
		return errors.New("--binary and --link report scalar predictions; a multiclass model reports classes (and --probabilities its class probabilities)")
	case c.softmax > 0 && c.changed("loss_function") && c.lossName != "logistic":
		return fmt.Errorf("--softmax trains the multinomial logistic loss; --loss_function %s does not apply", c.lossName)
	case c.softmax > 0 && c.nasaStep() != gd.StepSchedule:
		return errors.New("--softmax takes the AdaGrad, normalized or --sgd updates, not NASA's steps")
	}
	if c.maxMemory != "" {
		if _, err := engine.ParseBytes(c.maxMemory); err != nil {
			return fmt.Errorf("--max_memory %q: %v", c.maxMemory, err)
		}
	}
	return nil
}
