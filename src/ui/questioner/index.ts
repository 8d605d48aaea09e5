export { createQuestioner, type QuestionerOptions } from './create-questioner.js';
export { createPromptLock, type PromptLock } from './prompt-lock.js';
export type { PromptTerminal } from './enquirer-prompts.js';
export { combineAnswers, loadAnswersFile, parseAnswerFlags, parseAnswersDocument, type ScriptedAnswer, type ScriptedAnswers } from './scripted-answers.js';
