// A server's questions through a whole turn, the server over stdio in the sandbox (the cases: questionsCases.ts).
import { questionsCases } from './questionsCases.ts';

questionsCases('stdio');
