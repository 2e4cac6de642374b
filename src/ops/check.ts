// One line of `skillbot doctor`: a leaf type, so each check (the model's lives in src/model) imports it without
// importing doctor itself.

export type Verdict = 'ok' | 'warn' | 'FAIL';

export interface Check {
  verdict: Verdict;
  name: string;
  text: string;
}
