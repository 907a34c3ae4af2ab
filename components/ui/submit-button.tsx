"use client";

import { useFormStatus } from "react-dom";
import { buttonClass, type ButtonVariant } from "./button";
import { Spinner } from "./spinner";

/** A form's submit button that shows the pending label while its action runs. */
export function SubmitButton({
  children,
  pendingLabel,
  variant = "primary",
  className,
  ...props
}: React.ButtonHTMLAttributes<HTMLButtonElement> & { pendingLabel: string; variant?: ButtonVariant }) {
  const { pending } = useFormStatus();
  return (
    <button
      type="submit"
      {...props}
      disabled={pending || props.disabled}
      aria-disabled={pending || props.disabled}
      className={buttonClass(variant, className)}
    >
      {pending ? (
        <>
          <Spinner /> {pendingLabel}
        </>
      ) : (
        children
      )}
    </button>
  );
}
