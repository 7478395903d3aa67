import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordedStep, fold, replay } from '@herald/decider';
import { RunEvent } from './run-events';
import { RunInput } from './run-inputs';
import { decider, given } from './testing/run-builders';
import { RECORDED_INPUTS } from './testing/recorded-histories';

type StoredStep = Omit<RecordedStep<RunInput, RunEvent>, 'at'> & { readonly at: string };

function load(name: string): RecordedStep<RunInput, RunEvent>[] {
  const stored = JSON.parse(readFileSync(join(__dirname, 'testing', 'histories', `${name}.json`), 'utf8')) as StoredStep[];
  return stored.map((step) => ({ ...step, at: new Date(step.at) }));
}

describe('recorded histories', () => {
  const names = Object.keys(RECORDED_INPUTS);

  it.each(names)('given the recorded history %s, when it is replayed, then every decision is the same', (name) => {
    expect(replay(decider, load(name))).toBeUndefined();
  });

  it.each(names)('given the recorded history %s, then its events alone fold to the state the run reached', (name) => {
    const history = load(name);
    const events = history.flatMap((step) => step.decided);
    expect(fold(decider, events)).toEqual(given(RECORDED_INPUTS[name]).state);
  });

  it('given a history whose recorded decision differs, then replay reports the step', () => {
    const history = load('delay-branch-send');
    const tampered = [history[0], { ...history[1], decided: history[1].decided.slice(0, -1) }, history[2]];
    expect(replay(decider, tampered)).toMatchObject({ step: 1 });
  });
});
