import { badRequest } from "../api-error";
import type { MethodHandler } from "../method-context";
import { readString } from "../param-readers";

export const getFile: MethodHandler = (context, params) => {
  const file = context.state.fileById(readString(params, "file_id") ?? "");
  if (!file) throw badRequest("invalid file_id");
  return {
    file_id: file.fileId,
    file_unique_id: file.fileUniqueId,
    file_size: file.bytes.length,
    file_path: file.filePath,
  };
};
