# Shortcuts for the scripts under scripts/ (which need only bash).
.PHONY: build run test clean

build:
	bash scripts/build.sh

run:
	bash scripts/run.sh $(if $(SEED),--seed $(SEED)) $(ARGS)

test:
	bash scripts/test.sh

clean:
	rm -rf build
