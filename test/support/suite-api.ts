/**
 * The runner-neutral suite API (shipped in cachette/store/testing, where the store contract
 * uses it) and the small helpers every shared suite of the repository writes its tests with.
 */
export { bytes, sleep, text, type SuiteApi } from '../../src/store/testing/suite-api.ts';
