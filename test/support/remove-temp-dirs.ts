// Setup file (vitest.config.ts): after each test file, the folders its tests made with tempDir go.
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dir.js';

afterAll(removeTempDirs);
