// Lint rules: typescript-eslint's recommended set, plus the engine's purity rule as a lint error
// (the test in test/unit/purity.test.ts enforces the same thing independently).
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tap/**', 'bench/results/**', 'src/gen/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The examples are plain Node scripts, as a bot author writes them: Node's globals.
    files: ['examples/**/*.mjs'],
    languageOptions: { globals: { fetch: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
  {
    // Tests read JSON bodies off the wire: untyped by nature, asserted field by field.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/engine/**/*.ts', 'src/stdx/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['node:*'], message: 'The engine is pure: no I/O.' },
          { group: ['lmdb', 'uWebSockets.js', '@grpc/*', 'piscina'], message: 'The engine is pure: no I/O.' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'Date', message: 'The engine reads no clock: time comes with the command.' },
        { name: 'performance', message: 'The engine reads no clock.' },
        { name: 'process', message: 'The engine does no I/O.' },
      ],
      'no-restricted-properties': ['error',
        { object: 'Math', property: 'random', message: 'The engine draws no random numbers.' },
      ],
    },
  },
)
